#include "lib/core/redact.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace commbench {
namespace {

const std::vector<std::string> kStoreFlags = {"--rendezvous"};

// Passwords as users type them: every character that ever broke a redactor.
std::vector<std::string> HostilePasswords() {
  std::vector<std::string> out = {"a b",    "a'b",         "a\"b",     "a@b",   "a:b",       "a/b",        "a\nb",
                                  "a\tb",   "p\xc3\xa9ss", "\xff\xfe", "a://b", "a b@c",     "' ; rm -rf", "a\\b",
                                  "--flag", "a b c d e",   "@@@",      ":::",   "pw/0?x=1#f"};
  for (int b = 0x80; b <= 0xff; ++b) out.push_back("x" + std::string(1, static_cast<char>(b)) + "y");
  return out;
}

TEST(RedactSecretsTest, MasksTheWholeUserinfoOfEveryUrl) {
  EXPECT_EQ(RedactSecrets("commbench sweep --rendezvous redis://:pw1@h:1 --x redis://bob:pw2@g/3 redis://h:2"),
            "commbench sweep --rendezvous redis://***@h:1 --x redis://***@g/3 redis://h:2");
  EXPECT_EQ(RedactSecrets("--rendezvous=redis://:a:b@c@h"), "--rendezvous=redis://***@h");
  EXPECT_EQ(RedactSecrets("rediss://u:p@h:6380/2"), "rediss://***@h:6380/2");
  EXPECT_EQ(RedactSecrets("redis://:pass@host"), "redis://***@host");
  EXPECT_EQ(RedactSecrets("http://user:pass@host/x"), "http://***@host/x");
  EXPECT_EQ(RedactSecrets("://:pw@h"), "://***@h");  // no scheme at all
  EXPECT_EQ(RedactSecrets("redis://h:6379 and file:/x"), "redis://h:6379 and file:/x");
  EXPECT_EQ(RedactSecrets(""), "");
}

TEST(RedactSecretsTest, MasksSchemelessCredentials) {
  EXPECT_EQ(RedactSecrets("--store :pw@host:6379"), "--store ***@host:6379");
  EXPECT_EQ(RedactSecrets("user:pw@host"), "***@host");
  EXPECT_EQ(RedactSecrets("--rendezvous=user:pw@h"), "--rendezvous=***@h");
  EXPECT_EQ(RedactSecrets("'user:pw@h'"), "'***@h'");
  EXPECT_EQ(RedactSecrets("mail me@example.com"), "mail me@example.com");  // no ':' before the '@'
}

TEST(RedactSecretsTest, NoPasswordSurvivesInAQuotedCommandLine) {
  for (const std::string& pw : HostilePasswords()) {
    for (const char* scheme : {"redis://", "rediss://", "redis://user", "redis://a b"}) {
      const std::string line = std::string("commbench sweep --rendezvous '") + scheme + ":" + pw + "@h:6379' --x 1";
      const std::string r = RedactSecrets(line);
      EXPECT_EQ(r.find(pw), std::string::npos) << r;
      EXPECT_NE(r.find("@h:6379' --x 1"), std::string::npos) << r;
    }
  }
}

TEST(RedactStoreUrlTest, MasksEverythingBeforeTheLastAt) {
  EXPECT_EQ(RedactStoreUrl("redis://:pw@h:6379"), "redis://***@h:6379");
  EXPECT_EQ(RedactStoreUrl(":pw@host:6379"), "***@host:6379");
  EXPECT_EQ(RedactStoreUrl("user:pw@host"), "***@host");
  EXPECT_EQ(RedactStoreUrl("bad scheme://u:p@h"), "***@h");  // not a scheme: all of it
  EXPECT_EQ(RedactStoreUrl("redis://h:1"), "redis://h:1");
  EXPECT_EQ(RedactStoreUrl("redis://:secret"), "redis://***");
  EXPECT_EQ(RedactStoreUrl("redis://u:secret/0"), "redis://***");
  EXPECT_EQ(RedactStoreUrl(":secret"), "***");
  EXPECT_EQ(RedactStoreUrl("redis://[::1]:6379"), "redis://[::1]:6379");
  EXPECT_EQ(RedactStoreUrl("file:/shared/dir"), "file:/shared/dir");
  for (const std::string& pw : HostilePasswords()) {
    for (const std::string& url : {"redis://:" + pw + "@h", "rediss://u:" + pw + "@h", ":" + pw + "@h",
                                   "u:" + pw + "@h", "redis://" + pw + "@h", "x y://" + pw + "@h"}) {
      const std::string r = RedactStoreUrl(url);
      EXPECT_EQ(r.find(pw), std::string::npos) << r;
      EXPECT_EQ(r.substr(r.size() - 2), "@h") << r;
    }
  }
}

TEST(RedactArgumentsTest, MasksStoreValuesInEitherForm) {
  EXPECT_EQ(RedactArguments({"sweep", "--rendezvous", "redis://:a b@h:6379", "--iters", "5"}, kStoreFlags),
            (std::vector<std::string>{"sweep", "--rendezvous", "redis://***@h:6379", "--iters", "5"}));
  EXPECT_EQ(RedactArguments({"--rendezvous=:p w@h"}, kStoreFlags), (std::vector<std::string>{"--rendezvous=***@h"}));
  EXPECT_EQ(RedactArguments({"--rendezvous", "redis://h:6379", "--commit", "me@x"}, kStoreFlags),
            (std::vector<std::string>{"--rendezvous", "redis://h:6379", "--commit", "me@x"}));
  EXPECT_EQ(RedactArguments({"--rendezvous", "file:/d", "--out", "a@b.json"}, kStoreFlags),
            (std::vector<std::string>{"--rendezvous", "file:/d", "--out", "a@b.json"}));
  EXPECT_EQ(RedactArguments({"--rendezvous"}, kStoreFlags), (std::vector<std::string>{"--rendezvous"}));
  // URLs in other arguments are masked too.
  EXPECT_EQ(RedactArguments({"--note", "see redis://:pw@h"}, kStoreFlags),
            (std::vector<std::string>{"--note", "see redis://***@h"}));
}

TEST(RedactArgumentsTest, JoinsAValueTheShellSplit) {
  // `--rendezvous redis://:a b@h:6379` unquoted: two argv elements.
  EXPECT_EQ(RedactArguments({"sweep", "--rendezvous", "redis://:a", "b@h:6379", "--iters", "5"}, kStoreFlags),
            (std::vector<std::string>{"sweep", "--rendezvous", "redis://***@h:6379", "--iters", "5"}));
  EXPECT_EQ(RedactArguments({"--rendezvous", "redis://user:pa", "s", "s@h"}, kStoreFlags),
            (std::vector<std::string>{"--rendezvous", "redis://***@h"}));
  EXPECT_EQ(RedactArguments({"--rendezvous=:a", "b", "c@h"}, kStoreFlags),
            (std::vector<std::string>{"--rendezvous=***@h"}));
  // Begun, never ended: the rest of the value is masked, the arguments after it are kept.
  EXPECT_EQ(RedactArguments({"--rendezvous", "redis://:secret", "--iters", "5"}, kStoreFlags),
            (std::vector<std::string>{"--rendezvous", "redis://***", "--iters", "5"}));
  for (const std::string& pw : HostilePasswords()) {
    std::vector<std::string> args = {"sweep", "--rendezvous"};
    // Split as the shell would at every space, tab and newline.
    std::string value = "redis://:" + pw + "@h:1", word;
    for (char c : value) {
      if (c == ' ' || c == '\t' || c == '\n') {
        args.push_back(word);
        word.clear();
      } else {
        word += c;
      }
    }
    args.push_back(word);
    args.push_back("--iters");
    std::string joined;
    for (const std::string& a : RedactArguments(args, kStoreFlags)) joined += a + "\x01";
    // Every piece of the password longer than one byte is gone.
    std::string piece;
    for (char c : pw + " ") {
      if (c == ' ' || c == '\t' || c == '\n') {
        if (piece.size() > 1 && piece != "--") {
          EXPECT_EQ(joined.find(piece), std::string::npos) << pw << " " << joined;
        }
        piece.clear();
      } else {
        piece += c;
      }
    }
    EXPECT_NE(joined.find("@h:1\x01--iters"), std::string::npos) << joined;
  }
}

TEST(RedactArgumentsTest, RemembersWhatItMaskedForMessagesThatQuoteOneArgument) {
  std::vector<std::string> secrets;
  RedactArguments({"sweep", "--rendezvous", "redis://:Zq7", "s3cr3t@h:1", "--x", "--rendezvous=u:pw9@h"}, kStoreFlags,
                  &secrets);
  const std::string message = "sweep: unexpected argument 's3cr3t@h:1'; also Zq7 s3cr3t and u:pw9";
  EXPECT_EQ(MaskKnownSecrets(message, secrets), "sweep: unexpected argument '***@h:1'; also *** *** and ***");
  EXPECT_EQ(MaskKnownSecrets("abc", {"ab", ""}), "abc");  // too short to mask
}

TEST(RedactTest, HugeInputsFinishInLinearTime) {
  // Patterns that make a backtracking regex recurse or go quadratic; each of 5 MB, so that anything worse than
  // linear would not finish within the test's timeout (5e6^2 steps).
  const size_t n = 5 << 20;
  std::vector<std::string> inputs = {std::string(n, 'a'), std::string(n, '@'), std::string(n, ':'),
                                     std::string(n, ' ')};
  std::string urls, bare, nested;
  while (urls.size() < n) urls += "redis://:a";
  while (bare.size() < n) bare += "a:b";
  while (nested.size() < n) nested += "a://";
  inputs.push_back("redis://:" + std::string(n, 'x') + "@h");
  inputs.push_back(urls + "@h");
  inputs.push_back(urls);
  inputs.push_back(bare + "@h");
  inputs.push_back(nested);
  inputs.push_back(std::string(50 << 10, 'z'));
  for (const std::string& s : inputs) {
    const std::string r = RedactSecrets(s);
    EXPECT_LE(r.size(), s.size() + 3);
    const std::string u = RedactStoreUrl(s);
    EXPECT_LE(u.size(), s.size() + 3);
    std::vector<std::string> secrets;
    EXPECT_EQ(RedactArguments({"--rendezvous", s, "--x", s}, kStoreFlags, &secrets).size(), 4u);
    EXPECT_LE(MaskKnownSecrets(s, secrets).size(), s.size());
  }
  EXPECT_EQ(RedactSecrets("redis://:" + std::string(n, 'x') + "@h"), "redis://***@h");
}

TEST(SecretVariableTest, NamesThatHoldCredentials) {
  for (const char* name :
       {"COMMBENCH_REDIS_PASSWORD", "REDISCLI_AUTH", "NCCL_SOME_TOKEN", "gloo_secret", "CUDA_API_KEY", "OMP_PASSWD"}) {
    EXPECT_TRUE(IsSecretVariableName(name)) << name;
  }
  for (const char* name : {"NCCL_DEBUG", "GLOO_SOCKET_IFNAME", "CUDA_VISIBLE_DEVICES", "OMP_NUM_THREADS"}) {
    EXPECT_FALSE(IsSecretVariableName(name)) << name;
  }
}

}  // namespace
}  // namespace commbench
