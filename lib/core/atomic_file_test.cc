#include "lib/core/atomic_file.h"

#include <dirent.h>
#include <gtest/gtest.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

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
  }                                // dropped without Commit: the previous file stays and the temporary file goes
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

// A rewritten output keeps the mode and owner of the file it replaces: a private result stays private.
TEST(AtomicFileTest, ARewriteKeepsModeAndOwner) {
  TempDir dir("atomic-");
  const std::string path = dir.path() + "/private.json";
  ASSERT_TRUE(WriteFileAtomically(path, "first").ok());
  ASSERT_EQ(chmod(path.c_str(), 0600), 0);
  const bool root = geteuid() == 0;
  if (root) {
    ASSERT_EQ(chown(path.c_str(), 65534, 65534), 0);  // nobody's file, rewritten by root
  }
  ASSERT_TRUE(WriteFileAtomically(path, "second").ok());
  struct stat st;
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  if (root) {
    EXPECT_EQ(st.st_uid, 65534u);
    EXPECT_EQ(st.st_gid, 65534u);
  }
  EXPECT_EQ(Read(path), "second");
  ASSERT_EQ(chmod(path.c_str(), 0640), 0);
  ASSERT_TRUE(WriteFileAtomically(path, "third").ok());
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0640u);
}

// A new output follows the umask, as open(2) would create it.
TEST(AtomicFileTest, ANewFileFollowsTheUmask) {
  TempDir dir("atomic-");
  const mode_t old = umask(077);
  Status s = WriteFileAtomically(dir.path() + "/new.json", "x");
  umask(old);
  ASSERT_TRUE(s.ok()) << s.message();
  struct stat st;
  ASSERT_EQ(stat((dir.path() + "/new.json").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
}

TEST(AtomicFileTest, TheTemporaryFileNamesItsProcess) {
  TempDir dir("atomic-");
  const std::string path = dir.path() + "/out.json";
  auto file = AtomicFile::Create(path);
  ASSERT_TRUE(file.ok());
  DIR* d = opendir(dir.path().c_str());
  std::string name;
  while (const dirent* e = readdir(d)) {
    if (e->d_name[0] != '.') name = e->d_name;
  }
  closedir(d);
  EXPECT_EQ(name.rfind("out.json.tmp-" + std::to_string(getpid()) + "-", 0), 0u) << name;
  EXPECT_EQ(name.size(), std::string("out.json.tmp-").size() + std::to_string(getpid()).size() + 7) << name;
}

TEST(AtomicFileTest, SummariesAreCheckedBeforeAppending) {
  TempDir dir("atomic-");
  const std::string fifo = dir.path() + "/fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  for (const std::string& path : {fifo, dir.path(), std::string("/dev/full"), dir.path() + "/none/s.md"}) {
    Status s = CheckAppendableOutput(path);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << path;
    EXPECT_NE(s.message().find(path.substr(0, path.find("/s.md"))), std::string::npos) << s.message();
  }
  // A FIFO is refused at the append too, without waiting for a reader.
  EXPECT_FALSE(AppendToFile(fifo, "x").ok());
  const std::string summary = dir.path() + "/s.md";
  EXPECT_TRUE(CheckAppendableOutput(summary).ok());
  ASSERT_TRUE(AppendToFile(summary, "a\n").ok());
  ASSERT_TRUE(AppendToFile(summary, "b\n").ok());
  EXPECT_EQ(Read(summary), "a\nb\n");
  if (geteuid() != 0) {  // root may write anything
    ASSERT_EQ(chmod(summary.c_str(), 0400), 0);
    EXPECT_EQ(CheckAppendableOutput(summary).code(), StatusCode::kInvalidArgument);
  }
}

// A full disk shows at the append, as an error naming the file. Needs a small tmpfs of its own (root).
TEST(AtomicFileTest, AnAppendToAFullDiskIsAnError) {
  TempDir dir("atomic-full-");
  if (mount("tmpfs", dir.path().c_str(), "tmpfs", 0, "size=64k") != 0) {
    GTEST_SKIP() << "cannot mount a tmpfs (" << std::strerror(errno) << "): needs root";
  }
  const std::string path = dir.path() + "/s.md";
  Status full = AppendToFile(path, std::string(1 << 20, 'x'));
  EXPECT_EQ(full.code(), StatusCode::kUnavailable);
  EXPECT_NE(full.message().find("cannot append to " + path + ": No space left on device"), std::string::npos)
      << full.message();
  EXPECT_EQ(umount(dir.path().c_str()), 0);
}

}  // namespace
}  // namespace commbench
