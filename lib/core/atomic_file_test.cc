#include "lib/core/atomic_file.h"

#include <dirent.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "lib/core/temp_dir.h"

namespace commbench {
namespace {

std::string Read(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Every entry of `dir`: a temporary file left behind counts too.
int EntriesIn(const std::string& dir) {
  int n = 0;
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return -1;
  while (const dirent* e = readdir(d)) n += std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0;
  closedir(d);
  return n;
}

TEST(AtomicFileTest, ReplacesARegularFileOnlyOnCommit) {
  TempDir dir("atomic-");
  const std::string path = dir.path() + "/out.json";
  ASSERT_TRUE(WriteFileAtomically(path, "old").ok());
  {
    auto file = AtomicFile::Create(path);
    ASSERT_TRUE(file.ok()) << file.status().message();
    ASSERT_TRUE(file->Write("new").ok());
    EXPECT_EQ(Read(path), "old");  // not yet
  }  // dropped without Commit: the previous file stays and the temporary file goes
  EXPECT_EQ(Read(path), "old");
  EXPECT_EQ(EntriesIn(dir.path()), 1);
  ASSERT_TRUE(WriteFileAtomically(path, "new").ok());
  EXPECT_EQ(Read(path), "new");
}

TEST(AtomicFileTest, RefusesDevicesAndDirectories) {
  for (const char* path : {"/dev/null", "/dev/full", "/tmp"}) {
    Status s = WriteFileAtomically(path, "x");
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << path;
    EXPECT_NE(s.message().find(path), std::string::npos) << s.message();
    EXPECT_EQ(CheckWritableOutput(path).code(), StatusCode::kInvalidArgument) << path;
  }
  struct stat st;
  ASSERT_EQ(stat("/dev/full", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));  // still the device
}

TEST(AtomicFileTest, WritesThroughASymlinkToItsTarget) {
  TempDir dir("atomic-");
  const std::string target = dir.path() + "/target.json";
  const std::string link = dir.path() + "/link.json";
  ASSERT_EQ(symlink("target.json", link.c_str()), 0);  // relative, and dangling until the write
  ASSERT_TRUE(WriteFileAtomically(link, "through").ok());
  struct stat st;
  ASSERT_EQ(lstat(link.c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));  // the link stays a link
  EXPECT_EQ(Read(target), "through");
}

// A full disk: the write fails with an error, the previous file stays whole and no temporary file is left.
// Needs a small tmpfs of its own (root); skipped, and named by tools/test.sh, where it cannot be mounted.
TEST(AtomicFileTest, AFullDiskKeepsThePreviousFile) {
  TempDir dir("atomic-full-");
  if (mount("tmpfs", dir.path().c_str(), "tmpfs", 0, "size=64k") != 0) {
    GTEST_SKIP() << "cannot mount a tmpfs (" << std::strerror(errno) << "): needs root";
  }
  const std::string path = dir.path() + "/out.json";
  EXPECT_TRUE(WriteFileAtomically(path, "previous").ok());
  Status full = WriteFileAtomically(path, std::string(1 << 20, 'x'));
  EXPECT_EQ(full.code(), StatusCode::kInternal);
  EXPECT_NE(full.message().find("No space left on device"), std::string::npos) << full.message();
  EXPECT_EQ(Read(path), "previous");
  EXPECT_EQ(EntriesIn(dir.path()), 1);
  EXPECT_EQ(umount(dir.path().c_str()), 0);
}

TEST(AtomicFileTest, MissingOrUnwritableDirectoryIsInvalidArgument) {
  Status s = CheckWritableOutput("/nonexistent-dir-for-commbench/out.json");
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("/nonexistent-dir-for-commbench"), std::string::npos) << s.message();
  TempDir dir("atomic-");
  EXPECT_TRUE(CheckWritableOutput(dir.path() + "/out.json").ok());
}

}  // namespace
}  // namespace commbench
