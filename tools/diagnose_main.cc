// Developer tool: diagnose a result file again and print the findings (or the diagnosis as the result file
// records it, with --json). The product path is `commbench sweep`, which diagnoses as it writes.
#include <iostream>
#include <string>

#include "lib/diagnose/diagnose.h"
#include "lib/report/console_findings.h"
#include "lib/result/result_file.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: diagnose_main RESULT.json [--json]\n";
    return 2;
  }
  auto file = commbench::result::LoadResultFile(argv[1]);
  if (!file.ok()) {
    std::cerr << "diagnose_main: " << file.status().message() << "\n";
    return 2;
  }
  commbench::result::ResultTrailer trailer = file->trailer;
  trailer.diagnosis = commbench::diagnose::Diagnose(*file);
  if (argc > 2 && std::string(argv[2]) == "--json") {
    std::cout << commbench::result::TrailerToJson(trailer).dump(2) << "\n";
  } else {
    std::cout << commbench::FormatFindings(trailer.diagnosis);
  }
  return 0;
}
