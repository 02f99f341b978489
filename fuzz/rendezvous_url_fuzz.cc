// --rendezvous redis:// URLs (lib/rendezvous/redis_store.h) and the launcher variables (lib/launch/launcher_env.h):
// a password never reaches an error message or a redacted command line; a parsed URL has a host and a port in
// range; a detected place has 0 <= rank < world.
#include <cstdint>
#include <map>
#include <string>

#include "fuzz/fuzz_check.h"
#include "lib/launch/launcher_env.h"
#include "lib/rendezvous/redis_store.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace commbench;
  const std::string text(reinterpret_cast<const char*>(data), size);
  const std::string secret = "Zq7secretZq7";
  // The input as the rest of a URL whose password is the secret.
  const std::string url = "redis://:" + secret + "@" + text;
  if (text.find(secret) != std::string::npos) return 0;  // the secret elsewhere in the URL may well be shown
  auto a = ParseRedisUrl(url, nullptr);
  if (a.ok()) {
    FUZZ_CHECK(!a->host.empty(), "a host");
    FUZZ_CHECK(a->port >= 1 && a->port <= 65535, "a port in range");
    FUZZ_CHECK(a->Describe().find(secret) == std::string::npos, "Describe() without the password");
  } else {
    FUZZ_CHECK(a.status().message().find(secret) == std::string::npos,
               "no password in the error: " + a.status().message());
  }
  if (text.find('@') == std::string::npos && text.find_first_of(" \t\n\r\f\v") == std::string::npos) {
    FUZZ_CHECK(RedactSecrets("sweep --rendezvous " + url).find(secret) == std::string::npos, "redacted");
  }
  // The input's lines as launcher variables: NAME=VALUE.
  std::map<std::string, std::string> vars;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(start, end - start);
    const size_t eq = line.find('=');
    if (eq != std::string::npos) vars[line.substr(0, eq)] = line.substr(eq + 1);
    start = end + 1;
  }
  auto place = DetectLaunchPlace([&vars](const char* name) -> const char* {
    auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  });
  if (place.ok()) FUZZ_CHECK(place->rank >= 0 && place->rank < place->world, "0 <= rank < world");
  return 0;
}
