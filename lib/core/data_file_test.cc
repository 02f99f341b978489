#include "lib/core/data_file.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <fstream>

#include "lib/core/temp_dir.h"

namespace commbench {
namespace {

void Put(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

TEST(DataFileTest, ReadsARegularFileAndALinkToOne) {
  TempDir dir("data-file-");
  Put(dir.path() + "/r.json", "{\"a\": 1}");
  ASSERT_EQ(symlink((dir.path() + "/r.json").c_str(), (dir.path() + "/link.json").c_str()), 0);
  for (const char* name : {"/r.json", "/link.json"}) {
    auto text = ReadDataFile(dir.path() + name, 100, "result file");
    ASSERT_TRUE(text.ok()) << text.status().message();
    EXPECT_EQ(*text, "{\"a\": 1}");
  }
}

TEST(DataFileTest, RefusesEverythingThatIsNotARegularFileWithoutBlocking) {
  TempDir dir("data-file-");
  const std::string fifo = dir.path() + "/fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const std::string sock = dir.path() + "/sock";
  const int s = socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", sock.c_str());
  ASSERT_EQ(bind(s, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  const std::pair<std::string, const char*> cases[] = {{fifo, "a FIFO"},
                                                       {"/dev/zero", "a device"},
                                                       {"/dev/null", "a device"},
                                                       {dir.path(), "a directory"},
                                                       {sock, "not a regular file"}};
  for (const auto& [path, kind] : cases) {
    auto text = ReadDataFile(path, 1 << 20, "result file");
    ASSERT_FALSE(text.ok()) << path;
    EXPECT_EQ(text.status().code(), path == sock ? StatusCode::kUnavailable : StatusCode::kInvalidArgument) << path;
    if (path != sock) {
      EXPECT_NE(text.status().message().find(std::string("is ") + kind), std::string::npos) << text.status().message();
      EXPECT_NE(text.status().message().find("accepted: a regular file"), std::string::npos);
    }
  }
  close(s);
}

TEST(DataFileTest, RefusesAFileLargerThanItsBoundBeforeReadingIt) {
  TempDir dir("data-file-");
  Put(dir.path() + "/big", std::string(1001, 'x'));
  Put(dir.path() + "/fits", std::string(1000, 'x'));
  auto big = ReadDataFile(dir.path() + "/big", 1000, "baseline");
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(big.status().message().find("1001 bytes (accepted: at most 1000 bytes)"), std::string::npos)
      << big.status().message();
  EXPECT_TRUE(ReadDataFile(dir.path() + "/fits", 1000).ok());
  // A /proc file says size 0 and is read to its end, still within the bound.
  auto proc = ReadDataFile("/proc/self/status", 1 << 20);
  ASSERT_TRUE(proc.ok());
  EXPECT_NE(proc->find("Pid:"), std::string::npos);
  EXPECT_FALSE(ReadDataFile("/proc/self/status", 10).ok());
}

TEST(DataFileTest, AMissingFileIsNotFound) {
  auto text = ReadDataFile("/nonexistent/r.json", 10, "result file");
  EXPECT_EQ(text.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(ReadDataFile("", 10).status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace commbench
