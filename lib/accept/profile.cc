#include "lib/accept/profile.h"

#include <algorithm>
#include <cmath>

#include "lib/config/config_file.h"
#include "lib/core/name_table.h"
#include "lib/core/ranges.h"

namespace commbench::accept {
namespace {

using config::Key;
using config::KeySpec;
using config::ValueType;
using nlohmann::json;

constexpr NameTable<Phase, 4> kPhases = {{
    {Phase::kCluster, "cluster"},
    {Phase::kHost, "host"},
    {Phase::kBisection, "bisection"},
    {Phase::kPairs, "pairs"},
}};

constexpr NameTable<PeakOf, 3> kPeaks = {{
    {PeakOf::kNone, "none"},
    {PeakOf::kBestPair, "best_pair"},
    {PeakOf::kBestHost, "best_host"},
}};

std::string Quoted(const json& v) { return v.is_string() ? "'" + v.get<std::string>() + "'" : v.dump(); }

std::string Text(const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

// A value or list of values as a list.
std::vector<json> Items(const json& v) {
  if (v.is_array()) return std::vector<json>(v.begin(), v.end());
  return {v};
}

// The checks below return "" when good, else what is wrong, naming the value.
std::string CheckSize(const json& v) {
  if (v.is_array() || v.is_boolean()) return "expected one size, got " + v.dump();
  if (v.is_number() && (!v.is_number_integer() || v.get<double>() < 0)) return Quoted(v) + " is not a byte count";
  auto b = ParseByteSize(Text(v), "size");
  if (!b.ok()) return Quoted(v) + " is not a byte count";
  if (*b == 0) return "0 bytes measures nothing";
  return "";
}

std::string CheckSizes(const json& v) {
  for (const json& e : Items(v)) {
    std::string why = CheckSize(e);
    if (!why.empty()) return why;
  }
  return Items(v).empty() ? "no sizes" : "";
}

std::string CheckOp(const json& v) {
  if (!v.is_string() || !ParseCollective(v.get<std::string>()).ok()) return Quoted(v) + " is not a collective";
  return "";
}

std::string CheckOps(const json& v) {
  for (const json& e : Items(v)) {
    std::string why = CheckOp(e);
    if (!why.empty()) return why;
  }
  return Items(v).empty() ? "no collectives" : "";
}

std::string CheckPhase(const json& v) {
  if (!v.is_string() || !ParsePhase(v.get<std::string>()).ok()) return Quoted(v) + " is not a phase";
  return "";
}

std::string CheckPhases(const json& v) {
  for (const json& e : Items(v)) {
    std::string why = CheckPhase(e);
    if (!why.empty()) return why;
  }
  return Items(v).empty() ? "no phases" : "";
}

std::function<std::string(const json&)> AtLeast(double min, bool inclusive) {
  return [min, inclusive](const json& v) -> std::string {
    const double x = v.get<double>();
    if (!std::isfinite(x) || (inclusive ? x < min : x <= min)) return v.dump() + " is out of range";
    return "";
  };
}

KeySpec With(KeySpec k, std::function<std::string(const json&)> check, bool required = false) {
  k.check = std::move(check);
  k.required = required;
  return k;
}

KeySpec Object(std::string name, std::vector<KeySpec> children, ValueType type = ValueType::kObject) {
  KeySpec k = Key(std::move(name), type);
  k.children = std::move(children);
  return k;
}

std::string PhaseNames() { return NamesOf(kPhases); }

std::string OpNames() { return NameList(AllCollectives()); }

std::string Share(const json& v) {  // above 0, at most 1
  const double x = v.get<double>();
  return x > 0 && x <= 1 ? "" : v.dump() + " is out of range";
}

KeySpec ScopePhase() { return With(Key("phase", ValueType::kString, PhaseNames()), CheckPhase); }
KeySpec ScopeOp() { return With(Key("op", ValueType::kString, OpNames()), CheckOp); }

std::vector<KeySpec> FloorKeys() {
  return {
      ScopePhase(),
      ScopeOp(),
      With(Key("size", ValueType::kScalarOrList, "one size like 1M"), CheckSize, true),
      With(Key("busbw_gbps", ValueType::kNumber, "GB/s above 0"), AtLeast(0, false)),
      With(Key("fraction", ValueType::kNumber, "a share above 0, at most 1"), Share),
      With(Key("fraction_of", ValueType::kString, "best_pair, best_host"),
           [](const json& v) -> std::string {
             auto p = ParseName(kPeaks, v.get<std::string>(), "");
             return p.ok() && *p != PeakOf::kNone ? "" : Quoted(v) + " is not a measured peak";
           }),
      Key("source", ValueType::kString, "where the number comes from"),
  };
}

std::vector<KeySpec> CeilingKeys() {
  return {
      ScopePhase(),
      ScopeOp(),
      With(Key("size", ValueType::kScalarOrList, "one size like 4K"), CheckSize),
      With(Key("p50_us", ValueType::kNumber, "microseconds above 0"), AtLeast(0, false)),
      With(Key("p99_over_p50", ValueType::kNumber, "a ratio of at least 1"), AtLeast(1, true)),
  };
}

// A share of a typical pair or block: above 0, below 1.
KeySpec TypicalShare(const char* name) {
  return With(Key(name, ValueType::kNumber, "a share above 0, below 1"), [](const json& v) -> std::string {
    const double x = v.get<double>();
    return x > 0 && x < 1 ? "" : v.dump() + " is out of range";
  });
}

std::vector<KeySpec> PairsKeys() {
  return {
      With(Key("rounds", ValueType::kInteger, "1 to 1000"),
           [](const json& v) -> std::string {
             return v.get<long long>() >= 1 && v.get<long long>() <= 1000 ? "" : v.dump() + " is out of range";
           }),
      With(Key("seed", ValueType::kInteger, "0 or more"), AtLeast(0, true)),
      TypicalShare("pair_fraction"),
      With(Key("slow_rank_factor", ValueType::kNumber, "a factor above 1"), AtLeast(1, false)),
      TypicalShare("latency_fraction"),
      TypicalShare("tail_fraction"),
      TypicalShare("bandwidth_tail_fraction"),
  };
}

std::vector<KeySpec> ConfirmKeys() {
  return {
      With(Key("rounds", ValueType::kInteger, "0 to 100"),
           [](const json& v) -> std::string {
             return v.get<long long>() >= 0 && v.get<long long>() <= 100 ? "" : v.dump() + " is out of range";
           }),
      With(Key("confirmed_share", ValueType::kNumber, "a share above 0, at most 1"), Share),
      With(Key("intermittent_repeats", ValueType::kInteger, "1 or more"), AtLeast(1, true)),
  };
}

std::vector<KeySpec> StragglerKeys() {
  return {
      With(Key("share", ValueType::kNumber, "a share above 0, at most 1"), Share),
      With(Key("factor", ValueType::kNumber, "a factor above 1"), AtLeast(1, false)),
      With(Key("excess_us", ValueType::kNumber, "microseconds, 0 or more"), AtLeast(0, true)),
  };
}

std::vector<KeySpec> PreflightKeys() {
  auto count = [](const char* name, const char* accepted) {
    return With(Key(name, ValueType::kInteger, accepted), AtLeast(1, true));
  };
  return {
      count("hosts", "1 or more"),
      count("ranks_per_host", "1 or more"),
      With(Key("interface", ValueType::kString, "an interface name like eth0"),
           [](const json& v) -> std::string {
             const std::string s = v.get<std::string>();
             return !s.empty() && s.size() < 16 && s.find_first_of(" /\t") == std::string::npos
                        ? ""
                        : Quoted(v) + " is not an interface name";
           }),
      count("gpus_per_host", "1 or more"),
  };
}

std::function<std::string(const json&)> CheckBackend(std::vector<std::string> backends) {
  return [backends = std::move(backends)](const json& v) -> std::string {
    const std::string s = v.get<std::string>();
    return std::find(backends.begin(), backends.end(), s) != backends.end() ? "" : Quoted(v) + " is not a backend";
  };
}

std::vector<KeySpec> Keys(const std::vector<std::string>& backends) {
  return {
      Key("name", ValueType::kString),
      Key("description", ValueType::kString),
      With(Key("backend", ValueType::kString, CommaList(backends)), CheckBackend(backends), true),
      With(Key("ops", ValueType::kScalarOrList, OpNames()), CheckOps, true),
      With(Key("sizes", ValueType::kScalarOrList, "sizes like 4K, 1M"), CheckSizes, true),
      Object("floors", FloorKeys(), ValueType::kObjectList),
      Object("ceilings", CeilingKeys(), ValueType::kObjectList),
      With(Key("repeats", ValueType::kInteger, "1 to 100"),
           [](const json& v) -> std::string {
             return v.get<long long>() >= 1 && v.get<long long>() <= 100 ? "" : v.dump() + " is out of range";
           }),
      With(Key("time_budget_s", ValueType::kNumber, "seconds above 0"), AtLeast(0, false), true),
      With(Key("phases", ValueType::kScalarOrList, PhaseNames()), CheckPhases, true),
      Object("pairs", PairsKeys()),
      Object("straggler", StragglerKeys()),
      Object("drift", {Key("must_match", ValueType::kScalarOrList, "fingerprint keys like env.NCCL_* or kernel"),
                       Key("may_differ", ValueType::kScalarOrList, "fingerprint keys like net.*.speed")}),
      Object("bisection", {TypicalShare("block_fraction")}),
      Object("confirm", ConfirmKeys()),
      Object("preflight", PreflightKeys()),
  };
}

uint64_t Bytes(const json& v) { return *ParseByteSize(Text(v), "size"); }

// Builds the profile from a file CheckConfig found good; `problems` gets what only the whole file can tell (a
// floor at a size the profile does not run, a relative floor whose peak no phase measures, ...).
class Builder {
 public:
  Builder(const config::ConfigFile& f, std::vector<std::string>* problems) : f_(f), v_(f.values), problems_(problems) {}

  Profile Build() {
    Scalars();
    Sections();
    if (v_.contains("floors")) {
      for (size_t i = 0; i < v_["floors"].size(); ++i) p_.floors.push_back(FloorAt(i));
    }
    if (v_.contains("ceilings")) {
      for (size_t i = 0; i < v_["ceilings"].size(); ++i) p_.ceilings.push_back(CeilingAt(i));
    }
    if (p_.Runs(Phase::kPairs) && p_.preflight.hosts == 1) {
      Problem("preflight.hosts", "1: the pairs phase needs at least 2 hosts");
    }
    if (p_.Runs(Phase::kBisection) && p_.preflight.hosts >= 1 && p_.preflight.hosts < 4) {
      Problem("preflight.hosts",
              std::to_string(p_.preflight.hosts) + ": the bisection phase needs at least 4 hosts (two blocks of two)");
    }
    return p_;
  }

 private:
  void Problem(const std::string& key, const std::string& what) {
    std::string at = key;  // a missing key: the line of the mapping it is missing from
    while (!f_.lines.count(at) && at.find('.') != std::string::npos) at = at.substr(0, at.rfind('.'));
    problems_->push_back(f_.path + ":" + std::to_string(f_.LineOf(at)) + ": " + key + ": " + what);
  }

  // Name, backend, ops, sizes, repeats, budget and phases.
  void Scalars() {
    p_.path = f_.path;
    p_.name = v_.value("name", "");
    p_.description = v_.value("description", "");
    p_.backend = v_["backend"].get<std::string>();
    for (const json& e : Items(v_["ops"])) {
      Collective c = *ParseCollective(e.get<std::string>());
      if (std::find(p_.ops.begin(), p_.ops.end(), c) == p_.ops.end()) p_.ops.push_back(c);
    }
    for (const json& e : Items(v_["sizes"])) p_.sizes.push_back(Bytes(e));
    std::sort(p_.sizes.begin(), p_.sizes.end());
    p_.sizes.erase(std::unique(p_.sizes.begin(), p_.sizes.end()), p_.sizes.end());
    p_.repeats = v_.value("repeats", 1);
    p_.time_budget_s = v_["time_budget_s"].get<double>();
    for (Phase ph : AllPhases()) {  // run order, whatever order the file lists them in
      for (const json& e : Items(v_["phases"])) {
        if (*ParsePhase(e.get<std::string>()) == ph) {
          p_.phases.push_back(ph);
          break;
        }
      }
    }
  }

  // pairs, bisection and preflight.
  void Sections() {
    if (v_.contains("pairs")) {
      const json& s = v_["pairs"];
      p_.pairs.rounds = s.value("rounds", p_.pairs.rounds);
      p_.pairs.seed = s.value("seed", p_.pairs.seed);
      p_.pairs.pair_fraction = s.value("pair_fraction", p_.pairs.pair_fraction);
      p_.pairs.slow_rank_factor = s.value("slow_rank_factor", p_.pairs.slow_rank_factor);
      p_.pairs.latency_fraction = s.value("latency_fraction", p_.pairs.latency_fraction);
      p_.pairs.tail_fraction = s.value("tail_fraction", p_.pairs.tail_fraction);
      p_.pairs.bandwidth_tail_fraction = s.value("bandwidth_tail_fraction", p_.pairs.bandwidth_tail_fraction);
    }
    if (v_.contains("straggler")) {
      const json& s = v_["straggler"];
      p_.straggler.share = s.value("share", p_.straggler.share);
      p_.straggler.factor = s.value("factor", p_.straggler.factor);
      p_.straggler.excess_us = s.value("excess_us", p_.straggler.excess_us);
    }
    if (v_.contains("drift")) {
      for (const char* key : {"must_match", "may_differ"}) {
        if (!v_["drift"].contains(key)) continue;
        auto& list = std::string(key) == "must_match" ? p_.drift.must_match : p_.drift.may_differ;
        for (const json& e : Items(v_["drift"][key])) list.push_back(Text(e));
      }
    }
    if (v_.contains("bisection")) {
      p_.bisection.block_fraction = v_["bisection"].value("block_fraction", p_.bisection.block_fraction);
    }
    if (v_.contains("confirm")) {
      const json& s = v_["confirm"];
      p_.confirm.rounds = s.value("rounds", p_.confirm.rounds);
      p_.confirm.confirmed_share = s.value("confirmed_share", p_.confirm.confirmed_share);
      p_.confirm.intermittent_repeats = s.value("intermittent_repeats", p_.confirm.intermittent_repeats);
    }
    if (v_.contains("preflight")) {
      const json& s = v_["preflight"];
      p_.preflight.hosts = s.value("hosts", 0);
      p_.preflight.ranks_per_host = s.value("ranks_per_host", 0);
      p_.preflight.interface = s.value("interface", "");
      p_.preflight.gpus_per_host = s.value("gpus_per_host", 0);
    }
  }

  // A floor's or ceiling's phase and op, each among those the profile runs.
  void Scope(const json& e, const std::string& key, std::optional<Phase>* phase, std::optional<Collective>* op) {
    if (e.contains("phase")) {
      *phase = *ParsePhase(e["phase"].get<std::string>());
      if (!p_.Runs(**phase)) Problem(key + ".phase", "'" + std::string(Name(**phase)) + "' is not among phases");
    }
    if (e.contains("op")) {
      *op = *ParseCollective(e["op"].get<std::string>());
      if (std::find(p_.ops.begin(), p_.ops.end(), **op) == p_.ops.end()) {
        Problem(key + ".op", "'" + std::string(Name(**op)) + "' is not among ops");
      }
    }
  }

  void KnownSize(const json& e, const std::string& key) {
    if (std::find(p_.sizes.begin(), p_.sizes.end(), Bytes(e["size"])) == p_.sizes.end()) {
      Problem(key + ".size", Quoted(e["size"]) + " is not among sizes");
    }
  }

  Floor FloorAt(size_t i) {
    const json& e = v_["floors"][i];
    const std::string key = "floors[" + std::to_string(i) + "]";
    Floor fl;
    fl.line = f_.LineOf(key);
    Scope(e, key, &fl.phase, &fl.op);
    fl.bytes = Bytes(e["size"]);
    KnownSize(e, key);
    fl.source = e.value("source", "");
    const bool absolute = e.contains("busbw_gbps"), relative = e.contains("fraction") || e.contains("fraction_of");
    if (absolute == relative) {
      Problem(key, "give either busbw_gbps (declared) or fraction with fraction_of (measured), not " +
                       std::string(absolute ? "both" : "neither"));
    } else if (absolute) {
      fl.busbw_gbps = e["busbw_gbps"].get<double>();
    } else if (!e.contains("fraction") || !e.contains("fraction_of")) {
      Problem(key + (e.contains("fraction") ? ".fraction_of" : ".fraction"), "missing: a relative floor needs both");
    } else {
      fl.fraction = e["fraction"].get<double>();
      fl.of = *ParseName(kPeaks, e["fraction_of"].get<std::string>(), "");
      const Phase needs = fl.of == PeakOf::kBestPair ? Phase::kPairs : Phase::kHost;
      if (!p_.Runs(needs)) {
        Problem(key + ".fraction_of", "'" + std::string(Name(fl.of)) + "' needs the " + std::string(Name(needs)) +
                                          " phase, which phases does not list");
      }
    }
    return fl;
  }

  Ceiling CeilingAt(size_t i) {
    const json& e = v_["ceilings"][i];
    const std::string key = "ceilings[" + std::to_string(i) + "]";
    Ceiling c;
    c.line = f_.LineOf(key);
    Scope(e, key, &c.phase, &c.op);
    if (e.contains("size")) {
      c.bytes = Bytes(e["size"]);
      KnownSize(e, key);
    }
    c.p50_us = e.value("p50_us", 0.0);
    c.p99_over_p50 = e.value("p99_over_p50", 0.0);
    if (c.p50_us == 0 && c.p99_over_p50 == 0) Problem(key, "give p50_us, p99_over_p50 or both");
    return c;
  }

  const config::ConfigFile& f_;
  const json& v_;
  std::vector<std::string>* problems_;
  Profile p_;
};

}  // namespace

std::string_view Name(Phase p) { return p == Phase::kConfirm ? "confirm" : NameOf(kPhases, p); }
std::string_view Name(PeakOf p) { return NameOf(kPeaks, p); }

StatusOr<Phase> ParsePhase(std::string_view s) { return ParseName(kPhases, s, "unknown phase"); }

const std::vector<Phase>& AllPhases() {
  static const std::vector<Phase> all = ValuesOf(kPhases);
  return all;
}

bool Profile::Runs(Phase p) const { return std::find(phases.begin(), phases.end(), p) != phases.end(); }

static StatusOr<Profile> ProfileFrom(const config::ConfigFile& f, const std::vector<std::string>& backends) {
  std::vector<std::string> problems = config::CheckConfig(f, Keys(backends));
  Profile p;
  if (problems.empty()) p = Builder(f, &problems).Build();  // the whole-file checks need every key's own to hold
  if (problems.empty()) return p;
  std::string all;
  for (const std::string& line : problems) all += (all.empty() ? "" : "\n") + line;
  return InvalidArgument(all);
}

StatusOr<Profile> ParseProfile(const std::string& text, const std::string& path,
                               const std::vector<std::string>& backends) {
  ASSIGN_OR_RETURN(config::ConfigFile f, config::ParseConfigText(text, path));
  return ProfileFrom(f, backends);
}

StatusOr<Profile> LoadProfile(const std::string& path, const std::vector<std::string>& backends) {
  ASSIGN_OR_RETURN(config::ConfigFile f, config::ReadConfigFile(path));
  return ProfileFrom(f, backends);
}

}  // namespace commbench::accept
