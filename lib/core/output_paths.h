// No output may name an input of the same command, or a file of a store it reads: `gate --baseline B --out B`
// would replace the baseline with a comparison, `report r.json -o r.json` the result with HTML. Paths are compared
// as the files they reach (links resolved, `..` and `./` folded, a path that does not exist yet by its resolved
// directory), so a link or another spelling of the same file is caught too.
#pragma once

#include <string>
#include <vector>

#include "lib/core/status.h"

namespace commbench {

struct NamedPath {
  std::string flag;  // how the user gave it: "--out", "the baseline", "RESULT"
  std::string path;  // "" = not given
};

// The file `path` reaches: its canonical path when it exists (through links), else its resolved directory plus
// its name (a dangling link's target, followed). "" when neither can be resolved.
std::string ResolvedPath(const std::string& path);

// InvalidArgument "--out B.json is also the baseline B.json (accepted: a path that is none of the command's
// inputs)" when an output names an input or another output; also when an output lies inside one of
// `store_dirs` (a history directory). Empty paths are ignored.
Status CheckOutputsApart(const std::vector<NamedPath>& outputs, const std::vector<NamedPath>& inputs,
                         const std::vector<NamedPath>& store_dirs = {});

}  // namespace commbench
