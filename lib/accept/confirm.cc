#include "lib/accept/confirm.h"

#include <algorithm>
#include <random>
#include <set>

namespace commbench::accept {
namespace {

// Targets in batches a round can hold: no host in two of a batch's pairs, and a partner for each host target.
std::vector<std::vector<int>> Batches(const std::vector<RetestTarget>& targets, int partners,
                                      std::vector<std::string>* why_not) {
  std::vector<std::vector<int>> batches;
  std::vector<std::set<int>> used;
  std::vector<int> partners_taken;
  for (size_t t = 0; t < targets.size(); ++t) {
    const RetestTarget& x = targets[t];
    const bool needs_partner = x.peer < 0;
    if (needs_partner && partners < 1) {
      (*why_not)[t] = "a host's re-test needs 3 known-good hosts (a partner and a control pair)";
      continue;
    }
    size_t b = 0;
    for (; b < batches.size(); ++b) {
      const bool clash = used[b].count(x.host) || (x.peer >= 0 && used[b].count(x.peer));
      if (!clash && (!needs_partner || partners_taken[b] < partners)) break;
    }
    if (b == batches.size()) {
      batches.emplace_back();
      used.emplace_back();
      partners_taken.push_back(0);
    }
    batches[b].push_back(static_cast<int>(t));
    used[b].insert(x.host);
    if (x.peer >= 0) used[b].insert(x.peer);
    partners_taken[b] += needs_partner;
  }
  return batches;
}

}  // namespace

RetestPlan PlanRetests(int hosts, const std::vector<RetestTarget>& targets, int rounds, int max_rounds, uint64_t seed,
                       const std::set<int>& not_good) {
  RetestPlan plan;
  plan.why_not.assign(targets.size(), "");
  if (targets.empty() || rounds < 1) return plan;
  std::set<int> suspect = not_good;
  for (const RetestTarget& t : targets) {
    suspect.insert(t.host);
    if (t.peer >= 0) suspect.insert(t.peer);
  }
  std::vector<int> good;
  for (int h = 0; h < hosts; ++h) {
    if (!suspect.count(h)) good.push_back(h);
  }
  if (good.size() < 2) {
    for (std::string& w : plan.why_not) {
      w = std::to_string(good.size()) + " known-good host(s) outside the suspects: a re-test needs 2 for its control";
    }
    return plan;
  }
  const std::vector<std::vector<int>> batches = Batches(targets, static_cast<int>(good.size()) - 2, &plan.why_not);
  std::mt19937_64 rng(seed);
  // Round-major: each batch once per round, so every target's re-tests spread over the whole re-test.
  for (int r = 0; r < rounds; ++r) {
    for (const std::vector<int>& batch : batches) {
      if (static_cast<int>(plan.rounds.size()) >= max_rounds) {
        for (int t : batch) {
          if (plan.why_not[static_cast<size_t>(t)].empty() && r == 0) {
            plan.why_not[static_cast<size_t>(t)] = "the re-test's " + std::to_string(max_rounds) + " launches ran out";
          }
        }
        continue;
      }
      std::vector<int> order = good;
      std::shuffle(order.begin(), order.end(), rng);
      RetestRound round;
      size_t next = 2;  // order[0], order[1]: the control
      for (int t : batch) {
        const RetestTarget& x = targets[static_cast<size_t>(t)];
        const int other = x.peer >= 0 ? x.peer : order[next++];
        round.pairs.push_back({std::min(x.host, other), std::max(x.host, other)});
        round.target_of_pair.push_back(t);
      }
      round.pairs.push_back({std::min(order[0], order[1]), std::max(order[0], order[1])});
      round.target_of_pair.push_back(-1);
      plan.rounds.push_back(std::move(round));
    }
  }
  return plan;
}

}  // namespace commbench::accept
