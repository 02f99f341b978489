#include "lib/rendezvous/testing/redis_server.h"

#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>
#include <vector>

#include "lib/rendezvous/redis_store.h"

extern char** environ;

namespace commbench::testing {
int FreeLoopbackPort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a));
  socklen_t len = sizeof(a);
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  close(fd);
  return ntohs(a.sin_port);
}

RedisServer::RedisServer(const std::string& password) : port_(FreeLoopbackPort()) {
  std::vector<std::string> args = {"redis-server", "--port", std::to_string(port_), "--bind", "127.0.0.1", "--save", "",
                                   "--appendonly", "no",     "--loglevel",          "warning"};
  if (!password.empty()) args.insert(args.end(), {"--requirepass", password});
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  if (posix_spawnp(&pid_, "redis-server", nullptr, nullptr, argv.data(), environ) != 0) pid_ = -1;
  for (int i = 0; i < 200 && pid_ > 0; ++i) {
    RedisAddress probe{"127.0.0.1", port_, 0, "", password};
    if (RedisStore::Connect(probe, std::chrono::milliseconds(100)).ok()) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
}

RedisServer::~RedisServer() {
  if (pid_ <= 0) return;
  kill(pid_, SIGTERM);
  waitpid(pid_, nullptr, 0);
}

std::string RedisServer::Url(const std::string& credentials) const {
  return "redis://" + credentials + "127.0.0.1:" + std::to_string(port_);
}

}  // namespace commbench::testing
