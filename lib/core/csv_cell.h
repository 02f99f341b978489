// Cells of the CSV exports (lib/export/csv.h): RFC 4180 quoting, and OWASP's rule against CSV injection for text
// from files and flags.
#pragma once

#include <string>
#include <string_view>

namespace commbench {

// One RFC 4180 field: as it is, or quoted with its quotes doubled where it holds a comma, a quote or a line break,
// or starts with the quote that CsvText puts before a formula.
std::string CsvField(std::string_view text);

// A cell of text from a file or a flag (an id, a backend, a host name): one that starts with =, +, -, @, a tab or
// a CR would be a live formula in a spreadsheet, so it gets a leading ' and is quoted (OWASP). Numbers commbench
// formats go through CsvField alone and stay numbers (-3.5).
std::string CsvText(std::string_view text);

}  // namespace commbench
