// Secrets out of everything commbench records or prints: store URLs carry passwords
// (redis://[USER:]PASSWORD@HOST), and result files, reports, errors and logs are read by others (docs/design.md
// §10). Every function here is a single linear scan: arguments of megabytes cost no more than reading them.
#pragma once

#include <string>
#include <vector>

namespace commbench {

// `text` with the whole userinfo of every URL in it replaced by "***": after each "SCHEME://" (any scheme, a
// mistyped or empty one too), everything up to the last '@' before the next URL that starts a word. A password
// may hold anything (spaces, quotes, '@', ':', '/', newlines, any byte), so the mask errs on the long side.
// A word without "://" that holds a ':' before its last '@' (`user:pw@host`, `:pw@host:6379`) is masked up to
// that '@' as well.
std::string RedactSecrets(const std::string& text);

// A store flag's whole value (`--rendezvous VALUE`): everything before its last '@' (after "SCHEME://" when
// there is one) becomes "***", whatever it holds. Without an '@', a value whose userinfo has begun (`redis://:pw`,
// `redis://user:pw`, `:pw`) is masked after its scheme; any other as RedactSecrets.
std::string RedactStoreUrl(const std::string& url);

// A command line's arguments (no program name) as they may be recorded: the value of each flag in
// `store_flags` (`--flag VALUE` or `--flag=VALUE`) as RedactStoreUrl, every other argument as RedactSecrets.
// A store value whose userinfo has begun but holds no '@' (the shell split `redis://:a b@h` into `redis://:a`
// and `b@h`) takes the arguments up to the next one holding an '@' into one masked value; with none, its
// userinfo is masked to the end.
// When `secrets` is given, what was masked is added to it (the userinfo, and each argument it was split into), so
// that a message quoting an argument on its own can be scrubbed with MaskKnownSecrets.
std::vector<std::string> RedactArguments(std::vector<std::string> args, const std::vector<std::string>& store_flags,
                                         std::vector<std::string>* secrets = nullptr);

// `text` with every occurrence of each of `secrets` (those of 3 bytes or more) replaced by "***".
std::string MaskKnownSecrets(std::string text, const std::vector<std::string>& secrets);

// Whether an environment variable's name says its value is a credential (PASSWORD, PASSWD, SECRET, TOKEN,
// AUTH, CREDENTIAL, APIKEY/API_KEY, PRIVATE_KEY; any case): its value is never recorded.
bool IsSecretVariableName(const std::string& name);

}  // namespace commbench
