#include "lib/core/redact.h"

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <utility>

namespace commbench {
namespace {

constexpr const char* kMask = "***";

bool IsSchemeChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '+' || c == '.' || c == '-';
}

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

// Where the scheme of the "://" at `sep` starts (`sep` itself for an empty scheme), never before `floor`.
size_t SchemeStart(const std::string& s, size_t sep, size_t floor) {
  size_t b = sep;
  while (b > floor && IsSchemeChar(s[b - 1])) --b;
  return b;
}

// A URL that starts a word: its scheme is at the start of the text or after a space, a quote, '=', ',' or '('.
// Only such a URL ends the userinfo of the one before it; a "://" inside a password does not.
bool StartsWord(const std::string& s, size_t sep) {
  const size_t b = SchemeStart(s, sep, 0);
  if (b == sep) return false;
  if (b == 0) return true;
  const char c = s[b - 1];
  return IsSpace(c) || c == '\'' || c == '"' || c == '=' || c == ',' || c == '(';
}

// The URL rule of RedactSecrets.
std::string RedactUrls(const std::string& s) {
  std::vector<size_t> seps;  // every "://", found in one pass
  for (size_t p = s.find("://"); p != std::string::npos; p = s.find("://", p + 1)) seps.push_back(p);
  if (seps.empty()) return s;
  std::string out;
  out.reserve(s.size());
  size_t copied = 0;  // s[0, copied) is in `out`
  size_t k = 0;
  while (k < seps.size()) {
    const size_t start = seps[k] + 3;  // the authority of this URL
    // The next URL that starts a word ends this one's userinfo; URLs in between share this one's.
    size_t next = k + 1;
    while (next < seps.size() && (seps[next] < start || !StartsWord(s, seps[next]))) ++next;
    const size_t limit = next < seps.size() ? std::max(start, SchemeStart(s, seps[next], start)) : s.size();
    size_t at = std::string::npos;
    for (size_t i = limit; i > start; --i) {
      if (s[i - 1] == '@') {
        at = i - 1;
        break;
      }
    }
    if (at != std::string::npos) {
      out.append(s, copied, start - copied);
      out += kMask;
      copied = at;  // the '@' and the host stay
    }
    k = next;
  }
  out.append(s, copied, std::string::npos);
  return out;
}

// The scheme-less rule: a word without "://" with a ':' before its last '@'.
std::string RedactBareCredentials(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    if (IsSpace(s[i])) {
      out += s[i++];
      continue;
    }
    size_t end = i;
    while (end < s.size() && !IsSpace(s[end])) ++end;
    const std::string word = s.substr(i, end - i);
    const size_t at = word.rfind('@');
    const size_t colon = word.find(':');
    if (at != std::string::npos && colon != std::string::npos && colon < at && word.find("://") == std::string::npos) {
      size_t begin = 0;
      const size_t eq = word.find('=');
      if (word[0] == '-' && eq != std::string::npos && eq < colon) begin = eq + 1;  // --flag=user:pw@host
      while (begin < colon && (word[begin] == '\'' || word[begin] == '"')) ++begin;
      out.append(word, 0, begin);
      out += kMask;
      out.append(word, at, std::string::npos);
    } else {
      out += word;
    }
    i = end;
  }
  return out;
}

// The "SCHEME://" that starts `url`, or 0.
size_t SchemePrefix(const std::string& url) {
  const size_t sep = url.find("://");
  if (sep == std::string::npos) return 0;
  for (size_t i = 0; i < sep; ++i) {
    if (!IsSchemeChar(url[i])) return 0;
  }
  return sep + 3;
}

bool AllDigits(const std::string& s, size_t from, size_t to) {
  if (from >= to) return false;
  for (size_t i = from; i < to; ++i) {
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  }
  return true;
}

// Whether a store value without '@' reads as the start of a userinfo rather than HOST[:PORT][/DB]: an empty
// host (`redis://:pw`, `:pw`), or a "port" that is no number (`redis://user:pa`).
bool UserinfoStarted(const std::string& value) {
  const size_t scheme = SchemePrefix(value);
  if (scheme == 0) return !value.empty() && value[0] == ':';
  const std::string rest = value.substr(scheme);
  if (rest.empty() || rest[0] == ':') return true;
  if (rest[0] == '[') return false;  // an IPv6 host
  const size_t colon = rest.find(':');
  if (colon == std::string::npos) return false;
  size_t end = rest.find('/', colon);
  if (end == std::string::npos) end = rest.size();
  return !AllDigits(rest, colon + 1, end);
}

}  // namespace

std::string RedactSecrets(const std::string& text) { return RedactBareCredentials(RedactUrls(text)); }

std::string RedactStoreUrl(const std::string& url) {
  const size_t at = url.rfind('@');
  if (at == std::string::npos) {  // a userinfo begun and never ended (`redis://:pw`) is all password
    return UserinfoStarted(url) ? url.substr(0, SchemePrefix(url)) + kMask : RedactSecrets(url);
  }
  const size_t scheme = SchemePrefix(url);
  return url.substr(0, std::min(scheme, at)) + kMask + url.substr(at);
}

std::vector<std::string> RedactArguments(std::vector<std::string> args, const std::vector<std::string>& store_flags,
                                         std::vector<std::string>* secrets) {
  auto remember = [secrets](const std::string& s) {  // a userinfo, and its password alone
    if (secrets == nullptr || s.empty()) return;
    secrets->push_back(s);
    const size_t colon = s.find(':');
    if (colon != std::string::npos && colon + 1 < s.size()) secrets->push_back(s.substr(colon + 1));
  };
  std::vector<std::string> out;
  out.reserve(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    std::string& a = args[i];
    // The store value: `--flag VALUE` (the next argument) or `--flag=VALUE` (after the '=').
    size_t value_index = args.size();
    std::string prefix;
    for (const std::string& flag : store_flags) {
      if (a == flag && i + 1 < args.size()) {
        out.push_back(a);
        value_index = ++i;
      } else if (a.size() > flag.size() && a.compare(0, flag.size(), flag) == 0 && a[flag.size()] == '=') {
        prefix = a.substr(0, flag.size() + 1);
        value_index = i;
      }
      if (value_index != args.size()) break;
    }
    if (value_index == args.size()) {
      out.push_back(RedactSecrets(a));
      continue;
    }
    std::string value = args[value_index].substr(prefix.size());
    if (value.find('@') == std::string::npos && UserinfoStarted(value)) {
      size_t last = value_index + 1;
      while (last < args.size() && args[last].find('@') == std::string::npos) ++last;
      remember(value.substr(SchemePrefix(value)));
      if (last < args.size()) {  // the shell split the value: it ends in the argument that holds the '@'
        for (size_t k = value_index + 1; k <= last; ++k) {
          remember(args[k].substr(0, k == last ? args[k].rfind('@') : std::string::npos));
          value += " " + args[k];
        }
        i = last;
      } else {
        const size_t scheme = SchemePrefix(value);
        value = value.substr(0, scheme) + kMask;
      }
    }
    const size_t at = value.rfind('@');
    if (at != std::string::npos) {
      const size_t scheme = SchemePrefix(value);
      if (scheme < at) remember(value.substr(scheme, at - scheme));
    }
    out.push_back(prefix + RedactStoreUrl(value));
  }
  return out;
}

std::string MaskKnownSecrets(std::string text, const std::vector<std::string>& secrets) {
  for (const std::string& secret : secrets) {
    if (secret.size() < 3) continue;  // a one-letter password would mask every such letter
    std::string out;
    size_t from = 0;
    for (size_t p = text.find(secret); p != std::string::npos; p = text.find(secret, from)) {
      out.append(text, from, p - from);
      out += kMask;
      from = p + secret.size();
    }
    if (from == 0) continue;
    out.append(text, from, std::string::npos);
    text = std::move(out);
  }
  return text;
}

bool IsSecretVariableName(const std::string& name) {
  std::string upper;
  upper.reserve(name.size());
  for (char c : name) upper += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  for (const char* word :
       {"PASSWORD", "PASSWD", "SECRET", "TOKEN", "AUTH", "CREDENTIAL", "APIKEY", "API_KEY", "PRIVATE_KEY"}) {
    if (upper.find(word) != std::string::npos) return true;
  }
  return false;
}

}  // namespace commbench
