// Developer tool: diagnose a result file and print the findings (or the JSON with --json). The product path is
// `commbench sweep` / `commbench report`, which call Diagnose() and FormatFindings() themselves.
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

#include "lib/diagnose/diagnose.h"
#include "lib/report/console_findings.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: diagnose_main RESULT.json [--json]\n";
    return 2;
  }
  std::ifstream in(argv[1]);
  nlohmann::json result = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (result.is_discarded()) {
    std::cerr << "diagnose_main: " << argv[1] << " is not JSON\n";
    return 2;
  }
  nlohmann::json d = commbench::diagnose::Diagnose(result);
  if (argc > 2 && std::string(argv[2]) == "--json") {
    std::cout << d.dump(2) << "\n";
  } else {
    std::cout << commbench::FormatFindings(d);
  }
  return 0;
}
