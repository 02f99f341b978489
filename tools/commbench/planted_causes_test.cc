// The planted-cause suite (issue 4, docs/design.md §6): each test plants one cause of growth with a real sweep (real
// rank processes, Gloo over loopback TCP) and checks, from the result file, that the diagnosis ranks that cause
// first with the right status and confirms nothing else. Plus reference scenario A (docs/design.md §4) with defaults.
//
// These are timing tests on whatever host runs them, so every plant is chosen to be large next to timing noise
// (a world barrier costs orders of magnitude, a rank sleeps 2 ms per iteration, ...) and each test prints the
// points and findings when it fails. The target is tagged "exclusive": other tests running beside it on a
// 2-core host would themselves be a planted cause.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <utility>

#include "tools/commbench/testing/cli_runner.h"
#include "tools/commbench/testing/planted.h"

namespace commbench::testing {
namespace {

using nlohmann::json;

// Points (axes and p50) and findings, for failure messages: what the diagnosis saw.
std::string Digest(const json& r) {
  std::ostringstream o;
  o << "verdict: " << r.value("verdict", json()).dump() << "\n";
  for (const json& p : r["points"]) {
    o << "  G=" << p["groups"] << " " << p["bytes"] << " B sync=" << p["sync"].dump()
      << " concurrency=" << p.value("concurrency", json()).dump() << " pin=" << p["pin"].dump()
      << " cpus=" << p["cpus"].dump() << " p50=" << p["time_us"]["p50"] << " us mean=" << p["time_us"]["mean"]
      << " us sd=" << p["time_us"]["stddev"] << " us n=" << p["iters"]
      << " outside=" << p.value("host_load", json::object()).value("outside_share", -1.0) << "\n";
  }
  for (const json& c : r.value("caveats", json::array())) o << "  caveat: " << c.get<std::string>() << "\n";
  for (const char* list : {"findings", "ruled_out"}) {
    if (!r.contains(list)) continue;
    for (const json& f : r[list]) {
      o << "  " << list << ": " << f["rule"].get<std::string>() << " " << f["status"].get<std::string>()
        << " score=" << f["score"] << ": " << f["summary"].get<std::string>() << "\n";
    }
  }
  return o.str();
}

// One sweep through the real CLI; the parsed result file.
json Sweep(std::vector<std::string> args) {
  double s = 0;
  json result = RunSweep(args, &s);
  for (const json& p : result.value("points", json::array())) EXPECT_TRUE(p["correct"].get<bool>()) << p["id"];
  std::printf("sweep took %.1f s\n%s", s, Digest(result).c_str());
  return result;
}

// The evidence entry whose label is `label` (NaN when absent).
double Evidence(const json& finding, const std::string& label) {
  for (const json& e : finding["evidence"]) {
    if (e["label"] == label) return e["value"].get<double>();
  }
  return std::nan("");
}

const json* FindPoint(const json& r, const std::string& id) {
  for (const json& p : r["points"]) {
    if (p["id"] == id) return &p;
  }
  return nullptr;
}

// The growth evidence every finding carries (the loop cost per op, time_us.mean, at its first and last group
// count) is the data's own.
void ExpectGrowthEvidenceMatchesPoints(const json& r, const json& f) {
  ASSERT_FALSE(f["points"].empty()) << f.dump();
  const json* first = FindPoint(r, f["points"].front().get<std::string>());
  const json* last = FindPoint(r, f["points"].back().get<std::string>());
  ASSERT_TRUE(first && last) << f.dump();
  for (const json* p : {first, last}) {
    std::string label = "loop cost per op at G=" + std::to_string((*p)["groups"].get<int>());
    EXPECT_NEAR(Evidence(f, label), (*p)["time_us"]["mean"].get<double>(), 1e-6) << label;
  }
}

// The planted cause is ranked first with `status`; no other finding is confirmed.
void ExpectRankedFirst(const json& r, const std::string& rule, const std::set<std::string>& statuses) {
  ASSERT_EQ(r["verdict"], "growth") << Digest(r);
  ASSERT_FALSE(r["findings"].empty()) << Digest(r);
  const json& first = r["findings"][0];
  EXPECT_EQ(first["rule"], rule) << Digest(r);
  EXPECT_TRUE(statuses.count(first["status"].get<std::string>())) << Digest(r);
  for (size_t i = 1; i < r["findings"].size(); ++i) {
    EXPECT_NE(r["findings"][i]["status"], "confirmed") << Digest(r);
  }
  ExpectGrowthEvidenceMatchesPoints(r, first);
}

const json* FindFinding(const json& r, const std::string& rule) {
  for (const json& f : r["findings"]) {
    if (f["rule"] == rule) return &f;
  }
  return nullptr;
}

// The product's honest answer on a disturbed host: a cause whose A/B ran beside another process's load is left
// suspected, and the product says so: its summary says why it is not confirmed, or an outside_load finding names
// the process that loaded points this cause rests on (its series or its A/B's). A shared CI runner may do that to
// any timing A/B; a test accepts it, and still fails when the product is wrong (another cause confirmed, the
// cause missing, or left suspected with no load named).
// Said of the interleaved A/B, each claim is checked against what the file recorded: the sides' mean outside load
// (explain.abs[].rounds) for "extra load", the rounds' own cuts (ab[].pair_cuts) for "disagree".
bool AbHonestlyDisturbed(const json& r, const json& f) {
  const std::string summary = f["summary"].get<std::string>();
  const bool a_loaded = summary.find("A's extra load may be its growth") != std::string::npos;
  const bool b_loaded = summary.find("B's extra load may hide a cut") != std::string::npos;
  if ((a_loaded || b_loaded) && r.contains("explain")) {
    for (const json& ab : r["explain"]["abs"]) {
      if (ab["rule"] != f["rule"]) continue;
      // Per side and group count: the sum and count of the recorded outside loads (-1: not measured).
      std::map<int, std::pair<double, int>> at[2];
      for (const json& round : ab["rounds"]) {
        for (int side = 0; side < 2; ++side) {
          const double load = round[side == 0 ? "a" : "b"].value("outside_cpus", -1.0);
          if (load < 0) continue;
          auto& cell = at[side][round["groups"].get<int>()];
          cell.first += load, ++cell.second;
        }
      }
      if (at[0].empty() || at[1].empty()) continue;
      auto mean = [](const std::map<int, std::pair<double, int>>& by_g) {
        double sum = 0, n = 0;
        for (const auto& [g, cell] : by_g) sum += cell.first, n += cell.second;
        return sum / n;
      };
      auto growth = [](const std::map<int, std::pair<double, int>>& by_g) {
        return by_g.rbegin()->second.first / by_g.rbegin()->second.second -
               by_g.begin()->second.first / by_g.begin()->second.second;
      };
      const int more = a_loaded ? 0 : 1, less = 1 - more;  // the side whose load could make the verdict
      if (mean(at[more]) - mean(at[less]) >= 0.2 || growth(at[more]) - growth(at[less]) >= 0.2) return true;
    }
  }
  // A's own growth lost in its rounds' noise (a CI run beside another test: the barrier grew 238 us in the first
  // phase and not beyond its noise over 3 interleaved rounds): the pair tests nothing, and the product says so.
  if (summary.find("A does not grow beyond its noise over the") != std::string::npos) return true;
  if (summary.find("interleaved rounds disagree") != std::string::npos) {
    for (const json& ab : f.value("ab", json::array())) {
      double lo = 1e9, hi = -1e9;
      for (const json& cut : ab.value("pair_cuts", json::array()))
        lo = std::min(lo, cut.get<double>()), hi = std::max(hi, cut.get<double>());
      if (hi >= 0.5 && lo < 0.3) return true;
    }
  }
  return false;
}

bool HonestlyDisturbed(const json& r, const json& f) {
  if (f["status"] != "suspected") return false;
  const std::string summary = f["summary"].get<std::string>();
  if (summary.find(" Not confirmed: ") != std::string::npos || summary.find(" Not ruled out: ") != std::string::npos)
    return true;
  if (AbHonestlyDisturbed(r, f)) return true;
  std::set<std::string> rests_on;
  for (const char* key : {"points", "ab_points"}) {
    if (f.contains(key)) {
      for (const json& id : f[key]) rests_on.insert(id.get<std::string>());
    }
  }
  for (const json& g : r["findings"]) {
    if (g["rule"] != "outside_load" || !g.contains("points")) continue;
    for (const json& id : g["points"]) {
      if (rests_on.count(id.get<std::string>())) return true;
    }
  }
  return false;
}

// A "no growth" verdict whose caveats name what measured on this host may have hidden one: load from outside
// the run on its points, or a CPU quota the ranks ran out of.
bool NoGrowthSaysWhy(const json& r) {
  for (const json& c : r.value("caveats", json::array())) {
    const std::string text = c.get<std::string>();
    if (text.rfind("Outside load: ", 0) == 0 || text.rfind("CPU quota: ", 0) == 0) return true;
  }
  return false;
}

// The finding of `rule`, expected first and confirmed; nullptr (and the reason printed) when the host was
// disturbed and the product said so, which leaves the caller nothing more to check.
const json* ExpectConfirmedFirstUnlessDisturbed(const json& r, const std::string& rule,
                                                const std::set<std::string>& may_also_confirm = {}) {
  if (r["verdict"] != "growth" && NoGrowthSaysWhy(r)) {
    std::cout << "no growth measured, and the product said what may hide it\n";
    return nullptr;
  }
  EXPECT_EQ(r["verdict"], "growth") << Digest(r);
  for (const json& f : r["findings"]) {
    if (f["rule"] != rule && !may_also_confirm.count(f["rule"].get<std::string>())) {
      EXPECT_NE(f["status"], "confirmed") << Digest(r);
    }
  }
  const json* f = FindFinding(r, rule);
  if (f == nullptr) {
    ADD_FAILURE() << rule << " not found: " << Digest(r);
    return nullptr;
  }
  if (HonestlyDisturbed(r, *f)) {
    std::cout << "host disturbed during the A/B; the product said so: " << (*f)["summary"].get<std::string>() << "\n";
    return nullptr;
  }
  EXPECT_EQ(r["findings"][0]["rule"], rule) << Digest(r);
  EXPECT_EQ((*f)["status"], "confirmed") << Digest(r);
  ExpectGrowthEvidenceMatchesPoints(r, *f);
  return f;
}

// 1. Two single-rank groups on one core vs on two: at G=2 the one core runs two ranks, each gets half of it, and
// the loop cost per op doubles; on two cores each rank has its own and the cost stays. Native, whose one-rank
// allreduce is a copy inside the timed op (Gloo's is empty, so a shared core would only slow the untimed input
// copy). 1 MiB: input and output fit one core's L2, so the two-core side shares nothing (at 4 MiB it grew up to
// 30 %, and shared bandwidth was suspected). 1 s per point: a shared core's cost comes as whole time slices
// (ms) in a few ops, and 0.1 s held too few of them for the growth to clear 3 standard errors (2 of 10 runs read
// "no growth"); 0.5 s also read "no growth" once in a CI run, with its two-core G=1 point slowed to twice its
// one-core one by something else on the host. Pairs instead (G=1..3 on one core vs two) were confirmed in 6 of 10 quiet
// runs: two cores then hold 2 to 6 ranks, themselves oversubscribed, so the A/B removes only half the growth, the cut a
// confirmation needs (bench/archive.md).
TEST(PlantedCauses, OneCoreIsCpuOversubscription) {
  json r = Sweep({"--backends", "native", "--groups", "1,2", "--group-size", "1", "--sizes", "1M", "--cpus", "0;0-1",
                  "--time-budget", "1", "--explain"});
  // Groups taking turns (the concurrency A/B --explain runs for contention) also free the one core: that may
  // confirm that the groups contend, but only for CPU, never for bandwidth (their copies stay in cache).
  const json* confirmed = ExpectConfirmedFirstUnlessDisturbed(r, "cpu_oversubscription", {"shared_bandwidth"});
  const json* contend = FindFinding(r, "shared_bandwidth");
  if (contend != nullptr && (*contend)["status"] == "confirmed") {
    EXPECT_EQ((*contend)["cause"], "groups contend for CPU") << Digest(r);
  }
  if (confirmed == nullptr) return;
  const json& f = *confirmed;
  EXPECT_EQ(Evidence(f, "cores the ranks may use"), 1) << f.dump(1);
  EXPECT_EQ(Evidence(f, "ranks per core at G=2"), 2) << f.dump(1);
  ASSERT_TRUE(f.contains("ab") && !f["ab"].empty()) << f.dump(1);
  for (const json& ab : f["ab"]) EXPECT_NE(ab["outcome"], "rules out") << f.dump(1);
  EXPECT_NE(f["summary"].get<std::string>().find("--cpus 0-1"), std::string::npos) << f.dump(1);
  EXPECT_GE(f.value("growth_cut", 0.0), 0.5) << f.dump(1);
}

// 2. A world-wide barrier every iteration: each iteration waits for every group; --sync none removes it. Groups of
// one rank, so that nothing but the barrier grows: with pairs, 6 ranks on 2 cores at G=3 also grow the B side by
// oversubscription (the loop cost's stalls), a real second cause that left the cut's interval reaching below 30 %
// in 7 of 10 runs. A budget of 0.3 s per point: the barrier's loop cost at G=3 is heavy-tailed (p50 66 us, mean
// 657 us in a CI run), and with 0.05 s (150 iterations) its standard error left the cut's interval at 0-100 %.
TEST(PlantedCauses, WorldBarrierIsConfirmedBySyncNone) {
  json r = Sweep({"--groups", "1..3", "--group-size", "1", "--sizes", "400", "--sync", "none,world-barrier",
                  "--time-budget", "0.3", "--explain"});
  const json* confirmed = ExpectConfirmedFirstUnlessDisturbed(r, "world_barrier");
  if (confirmed == nullptr) return;
  const json& f = *confirmed;
  EXPECT_NE(f["summary"].get<std::string>().find("--sync none"), std::string::npos) << f.dump(1);
  EXPECT_GE(f.value("growth_cut", 0.0), 0.3) << f.dump(1);
}

// 3. Large messages from many groups at once share one capacity. Three large sizes, so that the slope is seen
// to scale with bytes (and the per-operation rules stand aside); all 1 MiB or more, because at 256 KiB the
// millisecond wake-ups of a busy 2-core host still bent the slope, and three rather than two because with two
// one noisy 20-iteration point (4 MiB at G=3 below G=2) left no line through the slopes. They span 16x, not 4x:
// oversubscribed ranks also add a per-operation cost to each group, and with 1M,2M,4M a CI run grew 2.6 ms per
// added group at 1 MiB (an op took 1.0 ms at G=1) and about as much at 2 MiB as at 4 MiB, so no size was
// bandwidth-bound and the rule stayed quiet. With 1M,4M,16M the bytes were 96-100 % of the 16 MiB slope in six
// quiet runs and 89-92 % in three beside a busy loop. The A/B runs the same points with the groups taking turns
// (--concurrency sequential): what the groups share is then no longer shared.
//
// On a 2-core host 3 pairs are also 6 ranks on 2 cores, and loopback "bandwidth" is CPU time (kernel copies), so
// CPU oversubscription is found too; but only the turn-taking A/B removes the growth, and it is the one confirmed.
// With each group's own iterations pooled in the sequential points (lib/measure/aggregate.cc), the A/B cut the
// growth by 92-100 % in those six quiet runs and 97-100 % in the three busy ones; shared bandwidth was first and
// confirmed in all nine. (Before the pooling, a sequential point paired iterations that ran at different times
// and the cut was 47-75 %.)
TEST(PlantedCauses, LargeConcurrentMessagesAreSharedBandwidth) {
  json r = Sweep({"--groups", "1..3", "--sizes", "1M,4M,16M", "--concurrency", "concurrent,sequential", "--time-budget",
                  "0.05", "--explain"});
  // --explain also runs oversubscription's own A/B (--cpus 0 against both cores): 6 ranks on 2 cores are
  // oversubscribed, so that may confirm too; shared bandwidth must still be first and confirmed.
  const json* confirmed = ExpectConfirmedFirstUnlessDisturbed(r, "shared_bandwidth", {"cpu_oversubscription"});
  if (confirmed == nullptr) return;
  const json& f = *confirmed;
  EXPECT_NE(f["summary"].get<std::string>().find("The slope scales with bytes"), std::string::npos) << f.dump(1);
  EXPECT_NE(f["summary"].get<std::string>().find("A/B: with groups one after another"), std::string::npos) << f.dump(1);
  EXPECT_GE(f.value("growth_cut", 0.0), 0.3) << f.dump(1);
}

// 4. One rank (rank 3: group 1 with pairs) sleeps 2 ms every iteration (test-only fault injection): from G=2 the
// iteration max is that group's, the others stay at the G=1 time.
TEST(PlantedCauses, SlowRankIsAStragglerInItsGroup) {
  json r = Sweep({"--groups", "1..3", "--sizes", "400", "--test-only-slow-rank", "3:2000", "--time-budget", "0.05"});
  ExpectRankedFirst(r, "straggler", {"suspected"});  // no A/B localises a straggler: always suspected
  const json& f = r["findings"][0];
  EXPECT_EQ(Evidence(f, "slow group"), 1) << f.dump(1);
  EXPECT_NE(f["summary"].get<std::string>().find("group 1 is the slowest"), std::string::npos) << f.dump(1);
  // The rank is a hint: rank 3 sleeps after its collective and rank 2 waits for it inside the next one, so the
  // two ranks' per-iteration medians are the same 2 ms (4696 vs 5774 us, 2212 vs 2298 us in one run) and either
  // may be named. It must be one of group 1's, and be the one the cause names.
  double rank = Evidence(f, "rank arriving last most often");
  EXPECT_TRUE(rank == 2 || rank == 3) << f.dump(1);
  EXPECT_EQ(f["cause"], "straggler group 1 (rank " + std::to_string(static_cast<int>(rank)) + ")") << f.dump(1);
  EXPECT_NE(f["summary"].get<std::string>().find("rank " + std::to_string(static_cast<int>(rank))), std::string::npos)
      << f.dump(1);
  EXPECT_GE(Evidence(f, "slow group p50 / other groups' median"), 5) << f.dump(1);
}

// 4b (issue 52). The same rank sleeps 5 ms before every op instead, outside the clock (--test-only-late-rank), as a
// rank busy in the application: it arrives late and its peer waits inside the op. The loop cost steps with group 1
// as before, but the collective's own time (the least any rank spent inside it) stays near the G=1 time while the
// arrival skew carries the growth: late arrival of rank 3, not a slower op, and the straggler rule (which reads a
// slow group's op) stays quiet.
TEST(PlantedCauses, ALateRankIsLateArrivalNotASlowerOp) {
  json r = Sweep({"--groups", "1..3", "--sizes", "400", "--test-only-late-rank", "3:5000", "--time-budget", "0.1"});
  ExpectRankedFirst(r, "late_arrival", {"suspected"});  // no A/B varies when ranks arrive
  const json& f = r["findings"][0];
  EXPECT_EQ(f["cause"], "late arrival: straggler rank 3") << f.dump(1);
  EXPECT_EQ(Evidence(f, "rank arriving last most often"), 3) << f.dump(1);
  EXPECT_EQ(FindFinding(r, "straggler"), nullptr) << Digest(r);
  const json* g1 = FindPoint(r, f["points"].front().get<std::string>());
  const json* g3 = FindPoint(r, f["points"].back().get<std::string>());
  ASSERT_TRUE(g1 && g3 && g1->contains("arrival") && g3->contains("arrival")) << f.dump(1);
  std::printf("G=1: transfer p50 %.1f us, skew p50 %.1f us; G=3: transfer p50 %.1f us, skew p50 %.1f us, p99 %.1f us\n",
              (*g1)["arrival"]["transfer_us"]["p50"].get<double>(), (*g1)["arrival"]["skew_us"]["p50"].get<double>(),
              (*g3)["arrival"]["transfer_us"]["p50"].get<double>(), (*g3)["arrival"]["skew_us"]["p50"].get<double>(),
              (*g3)["arrival"]["skew_us"]["p99"].get<double>());
  EXPECT_EQ((*g3)["arrival"]["method"], "clock");
  // The sleep is 5000 us: the skew at G=3 is about that (5156 us in a run on a 2-core host at load 14), at G=1
  // nothing was planted (29 us).
  EXPECT_GE((*g3)["arrival"]["skew_us"]["p50"].get<double>(), 3000) << g3->dump();
  EXPECT_LT((*g1)["arrival"]["skew_us"]["p50"].get<double>(), 500) << g1->dump();
  // The arrival skew, not the op, is most of what the late rank costs: the collective's own time stays below it
  // (97 us at G=1 and 223 us at G=3 on a 2-core host at load 14; 2349 us at G=3 where outside compilers took 80 %
  // of the host's CPU and the waiting peer queued for a core inside the op).
  EXPECT_LT((*g3)["arrival"]["transfer_us"]["p50"].get<double>(), (*g3)["arrival"]["skew_us"]["p50"].get<double>())
      << g3->dump();
  // The fit of the finding's series reads the growth as late arrival.
  bool split_read = false;
  for (const json& fit : r["fits"]) {
    if (fit["points"] != f["points"]) continue;
    ASSERT_TRUE(fit.contains("split")) << fit.dump();
    EXPECT_EQ(fit["split"]["reading"], "late arrival") << fit.dump();
    split_read = true;
  }
  EXPECT_TRUE(split_read) << Digest(r);
}

// 5. Control: nothing planted. One rank per group and at most as many ranks as a 2-core host has cores, so no
// rank waits for another or for a core: flat here and on any larger host.
TEST(PlantedCauses, ControlHasNoConfirmedFinding) {
  json r = Sweep({"--groups", "1,2", "--group-size", "1", "--sizes", "64K,1M", "--time-budget", "0.05"});
  ASSERT_TRUE(r.contains("findings")) << Digest(r);
  for (const json& f : r["findings"]) EXPECT_NE(f["status"], "confirmed") << Digest(r);
  EXPECT_TRUE(r["verdict"] == "no growth" || r["verdict"] == "growth") << Digest(r);
}

// The A/B points --explain added (explain.abs[] in the result): rule -> its factor's [axis, value] pairs.
std::map<std::string, json> ExplainAbs(const json& r) {
  std::map<std::string, json> out;
  if (!r.contains("explain")) return out;
  for (const json& ab : r["explain"]["abs"]) out[ab["rule"].get<std::string>()] = ab["factor"];
  return out;
}

// 6 (issue 11 a). Pinning alone on an oversubscribed sweep: 12 ranks on 2 cores, with and without --pin compact.
// Pinning does not change how many ranks share a core, so it is not oversubscription's A/B: the cause is found
// but stays suspected. The pin A/B is wake-up latency's own, so that cause alone may be confirmed by it. (With
// the diagnosis that let the pin A/B confirm oversubscription too, this test fails whenever pinning cuts the
// growth, which it did by 90-100 % on the development VM.)
//
// With --explain the pin pair runs interleaved, and oversubscription gets its own A/B (--cpus 0): whatever that
// finds, no pin pair may stand as oversubscription's evidence, and only its own factor may confirm it.
TEST(PlantedCauses, PinAloneDoesNotConfirmOversubscription) {
  json r = Sweep({"--groups", "1..6", "--sizes", "64K", "--pin", "none,compact", "--time-budget", "0.05", "--explain"});
  if (r["verdict"] != "growth") {
    // Beside other tests the medians may stay flat (one CI run: 127-407 us from G=1 to 6, no trend): nothing
    // grew, so nothing may be confirmed either, by pinning least of all.
    for (const json& f : r["findings"]) EXPECT_NE(f["status"], "confirmed") << Digest(r);
    std::cout << "no growth this run; nothing confirmed\n";
    return;
  }
  const json* over = FindFinding(r, "cpu_oversubscription");
  ASSERT_NE(over, nullptr) << Digest(r);
  for (const json& ab : over->value("ab", json::array())) EXPECT_NE(ab["factor"], "pin") << over->dump(1);
  for (const json& f : r["findings"]) {
    if (f["status"] == "confirmed") {
      EXPECT_TRUE(f["rule"] == "wakeup_latency" || f["rule"] == "cpu_oversubscription") << Digest(r);
    }
  }
}

// 7 (issue 11 b). Several A/Bs in one --explain run: a world-wide barrier every iteration, in groups of one rank
// (as test 2) so that only the barrier grows, with three of them on a 2-core host. The first phase suspects the
// barrier and, as three ranks outnumber two cores, oversubscription (and wake-up latency); the second runs each
// one's own A/B for the series named: --sync none, --cpus 0 (one core vs all), --pin compact. The barrier is
// confirmed by --sync none, and by nothing else; no other cause is confirmed by an A/B that is not its own.
// With pairs instead (6 ranks at G=3) oversubscription grew the --sync none side too, and the barrier was
// confirmed in 7 of 10 quiet runs (bench/archive.md).
TEST(PlantedCauses, ExplainRunsEachSuspectsOwnAb) {
  json r = Sweep({"--groups", "1..3", "--group-size", "1", "--sizes", "400", "--sync", "world-barrier", "--explain",
                  "--time-budget", "0.3"});
  ASSERT_TRUE(r.contains("explain")) << Digest(r);
  const auto abs = ExplainAbs(r);
  ASSERT_TRUE(abs.count("world_barrier")) << r["explain"].dump(1);
  EXPECT_EQ(abs.at("world_barrier"), json::parse(R"([["sync", "none"]])"));
  EXPECT_GE(abs.size(), 2u) << r["explain"].dump(1);  // several A/Bs in one run
  EXPECT_EQ(r["explain"]["first_phase_points"], 3) << r["explain"].dump(1);
  // The barrier first and confirmed; oversubscription (three ranks, two cores) is real too and may be confirmed by
  // its own --cpus A/B; nothing else may be.
  const json* confirmed = ExpectConfirmedFirstUnlessDisturbed(r, "world_barrier", {"cpu_oversubscription"});
  if (confirmed == nullptr) return;
  const json& f = *confirmed;
  EXPECT_NE(f["summary"].get<std::string>().find("--sync none"), std::string::npos) << f.dump(1);
  for (const json& id : f["ab_points"]) EXPECT_NE(id.get<std::string>().find("sync=none"), std::string::npos) << id;
  ASSERT_TRUE(f.contains("ab") && !f["ab"].empty()) << f.dump(1);
  for (const json& ab : f["ab"]) EXPECT_NE(ab["outcome"], "rules out") << f.dump(1);
}

// 8 (issue 11 d). A control with A/B axes and nothing planted: one rank per group and at most as many ranks as
// a 2-core host has cores, pinned and unpinned, concurrent and in turns, with --explain. Nothing may be
// confirmed (test 5 has no A/B, so it could not confirm anything even if the diagnosis were wrong).
TEST(PlantedCauses, ControlWithAbAxesConfirmsNothing) {
  // Beside a busy process two concurrent groups really do contend, and the product must then name that process
  // and leave the contention suspected (lib/diagnose outside_load: a loaded A/B confirms nothing), so this holds
  // on a busy host too. Sizes whose copies two cores do not share: at 1 MiB two single-rank groups at once slowed
  // each other's typical op by 20-42 % in 13 of 60 pairs in one half hour on the 2-core VM (memory bandwidth,
  // confirmed, and real), at 64 KiB by at most 13 % in the same runs.
  json r = Sweep({"--groups", "1,2", "--group-size", "1", "--sizes", "16K,64K", "--pin", "none,compact",
                  "--concurrency", "concurrent,sequential", "--explain", "--time-budget", "0.05"});
  ASSERT_TRUE(r.contains("findings")) << Digest(r);
  ASSERT_TRUE(r.contains("explain")) << Digest(r);
  for (const json& f : r["findings"]) EXPECT_NE(f["status"], "confirmed") << Digest(r);
}

// Reference scenario A (docs/design.md §4): `commbench sweep --groups 1..8` with the default sizes (a shorter time
// budget).
// Whatever the host, the small-message series must be found growing once the ranks outnumber the cores, and the
// CPU-oversubscription finding must state this host's cores and where the ranks outnumber them, with the data's
// own numbers. (Which of the CPU findings ranks first depends on how busy the host is: a host busy with other
// work reads as idle-and-waiting to the wake-up-latency rule.)
TEST(PlantedCauses, ReferenceScenarioA) {
  json r = Sweep({"--groups", "1..8", "--time-budget", "0.05"});
  ASSERT_EQ(r["verdict"], "growth") << Digest(r);
  ASSERT_FALSE(r["findings"].empty()) << Digest(r);
  for (const json& f : r["findings"]) EXPECT_NE(f["status"], "confirmed") << Digest(r);  // no A/B in the sweep
  const double cores = r["environment"].value("cores_available", json()).is_number()
                           ? r["environment"]["cores_available"].get<double>()
                           : std::nan("");
  const json* cpu = nullptr;
  for (const json& f : r["findings"]) {
    if (f["rule"] == "cpu_oversubscription") cpu = &f;
  }
  const int world8 = 16;
  if (std::isnan(cores) || cores < world8) {  // ranks outnumber cores somewhere in 1..8: it must be said
    ASSERT_NE(cpu, nullptr) << Digest(r);
    const json& f = *cpu;
    double may_use = Evidence(f, "cores the ranks may use");
    EXPECT_GT(may_use, 0) << f.dump(1);
    if (!std::isnan(cores)) {
      EXPECT_EQ(may_use, cores) << f.dump(1);
    }
    // From the first G with 2G > cores; and the ranks per core at G=8 is 16 / cores.
    EXPECT_EQ(Evidence(f, "ranks outnumber cores from"), std::floor(may_use / 2) + 1) << f.dump(1);
    EXPECT_NEAR(Evidence(f, "ranks per core at G=8"), world8 / may_use, 1e-9) << f.dump(1);
    ExpectGrowthEvidenceMatchesPoints(r, f);
    EXPECT_GE(Evidence(f, "growth over the series"), 10) << f.dump(1);  // the fitted growth, in %
  }
  ExpectGrowthEvidenceMatchesPoints(r, r["findings"][0]);
}

}  // namespace
}  // namespace commbench::testing
