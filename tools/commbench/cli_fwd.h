// CLI11's types as the CLI's headers name them: a declaration, not CLI11 itself. <CLI/CLI.hpp> costs 3.3 s of
// compiler time in every file that includes it (g++ -O2, measured here); only the files that add or read options
// include it.
#pragma once

namespace CLI {
class App;
class ParseError;
}  // namespace CLI
