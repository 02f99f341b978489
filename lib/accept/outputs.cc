#include "lib/accept/outputs.h"

#include <cmath>
#include <cstdio>

#include "lib/core/markdown.h"
#include "lib/core/printable.h"
#include "lib/core/ranges.h"
#include "lib/core/xml.h"

namespace commbench::accept {
namespace {

using nlohmann::json;

json Number(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

std::string Num(double v) {
  if (!std::isfinite(v)) return "n/a";
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.3g", v);
  return buf;
}

std::string Verdict(bool passed) { return passed ? "pass" : "fail"; }

std::string Who(const AcceptanceSuspect& s) {
  switch (s.what) {
    case SuspectWhat::kLink:
      return "link " + s.host + " - " + s.peer;
    case SuspectWhat::kRank:
      return "rank " + std::to_string(s.rank) + " on " + s.host;
    case SuspectWhat::kHost:
      break;
  }
  return "host " + s.host;
}

std::string Figures(const Check& c) {
  if (!std::isfinite(c.measured) && !std::isfinite(c.limit)) return "";
  return "measured " + Num(c.measured) + (c.unit.empty() ? "" : " " + c.unit) + ", limit " + Num(c.limit) +
         (c.unit.empty() ? "" : " " + c.unit);
}

// The bisection's levels at one op and size, blocks named by their hosts.
json BisectionJson(const BisectionTable& t) {
  auto names = [&t](const std::vector<int>& hosts) {
    json out = json::array();
    for (int h : hosts) {
      out.push_back(h >= 0 && h < static_cast<int>(t.hosts.size()) ? t.hosts[static_cast<size_t>(h)] : "");
    }
    return out;
  };
  json levels = json::array();
  for (const LevelVerdict& l : t.levels) {
    json blocks = json::array();
    for (const BlockVerdict& b : l.blocks) {
      blocks.push_back({{"hosts", names(b.hosts)}, {"busbw_gbps", Number(b.gbps)}, {"failed", b.failed}});
    }
    levels.push_back({{"level", l.level},
                      {"phase", "bisect-" + std::to_string(l.level)},
                      {"block_hosts", l.block_hosts},
                      {"finest", l.finest},
                      {"typical_gbps", Number(l.typical_gbps)},
                      {"threshold_gbps", Number(l.threshold_gbps)},
                      {"blocks", blocks},
                      {"idle", names(l.idle)}});
  }
  return {{"op", std::string(Name(t.op))}, {"bytes", t.bytes}, {"levels", levels}};
}

std::vector<std::string> KindNames(const std::vector<ReasonKind>& kinds) {
  std::vector<std::string> out;
  for (ReasonKind k : kinds) out.emplace_back(Name(k));
  return out;
}

std::string Joined(const std::vector<ReasonKind>& kinds) {
  std::string out;
  for (ReasonKind k : kinds) out += (out.empty() ? "" : ",") + std::string(Name(k));
  return out;
}

std::string TestName(const Check& c) { return c.host.empty() ? c.name : c.name + " [" + c.host + "]"; }

}  // namespace

json AcceptanceToJson(const AcceptanceReport& r, const Profile& profile) {
  json j = {{"profile", profile.path},
            {"profile_name", profile.name},
            {"verdict", Verdict(r.passed)},
            {"exit_code", r.ExitCode()},
            {"clean_answer", CleanAnswer(r)}};
  j["phases"] = json::array();
  for (Phase p : profile.phases) j["phases"].push_back(std::string(Name(p)));
  j["checks"] = json::array();
  for (const Check& c : r.checks) {
    j["checks"].push_back({{"name", c.name},
                           {"host", c.host},
                           {"passed", c.passed},
                           {"measured", Number(c.measured)},
                           {"limit", Number(c.limit)},
                           {"unit", c.unit},
                           {"reason", c.reason},
                           {"preflight", c.preflight},
                           {"kind", std::string(Name(c.kind))}});
    if (!c.disturbed_by.empty()) j["checks"].back()["disturbed_by"] = c.disturbed_by;
  }
  j["hosts"] = json::array();
  for (const HostVerdict& h : r.hosts) {
    j["hosts"].push_back({{"host", h.host},
                          {"verdict", Verdict(h.passed)},
                          {"points", h.points},
                          {"partners", h.partners},
                          {"partners_passed", h.partners_passed},
                          {"host_busbw_gbps", h.host_busbw_gbps},
                          {"pair_busbw_gbps", h.pair_busbw_gbps},
                          {"reasons", h.reasons},
                          {"reason_kinds", KindNames(h.reason_kinds)}});
  }
  j["suspects"] = json::array();
  for (const AcceptanceSuspect& s : r.suspects) {
    json x = {{"kind", std::string(Name(s.what))},
              {"host", s.host},
              {"score", s.score},
              {"evidence", s.evidence},
              {"reason", std::string(Name(s.reason))}};
    if (s.what == SuspectWhat::kLink) x["peer"] = s.peer;
    if (s.what == SuspectWhat::kRank) x["rank"] = s.rank;
    if (s.what == SuspectWhat::kRank && s.pid > 0) x["pid"] = s.pid;
    x["retest"] = s.retest == Retest::kConfirmed      ? "confirmed"
                  : s.retest == Retest::kIntermittent ? "intermittent"
                                                      : "not_run";
    if (!s.confirmation.empty()) x["confirmation"] = s.confirmation;
    j["suspects"].push_back(x);
  }
  j["pair_matrices"] = json::array();
  for (const PairMatrix& m : r.pair_matrices) {
    json rows = json::array();
    for (const auto& row : m.gbps) {
      json cells = json::array();
      for (double v : row) cells.push_back(Number(v));
      rows.push_back(cells);
    }
    j["pair_matrices"].push_back({{"op", std::string(Name(m.op))},
                                  {"bytes", m.bytes},
                                  {"hosts", m.hosts},
                                  {"busbw_gbps", rows},
                                  {"rounds", m.rounds},
                                  {"rounds_passed", m.rounds_passed},
                                  {"typical_gbps", Number(m.typical_gbps)},
                                  {"threshold_gbps", Number(m.threshold_gbps)},
                                  {"floor_gbps", Number(m.floor_gbps)},
                                  {"floor", m.floor}});
  }
  j["bisections"] = json::array();
  for (const BisectionTable& t : r.bisections) j["bisections"].push_back(BisectionJson(t));
  j["notes"] = r.notes;
  return j;
}

std::string AcceptanceToJunit(const AcceptanceReport& r) {
  int failures = 0;
  for (const Check& c : r.checks) failures += !c.passed;
  for (const HostVerdict& h : r.hosts) failures += !h.passed;
  std::string x =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites><testsuite name=\"commbench.accept\" tests=\"" +
      std::to_string(r.checks.size() + r.hosts.size()) + "\" failures=\"" + std::to_string(failures) + "\">\n";
  for (const Check& c : r.checks) {
    x += "<testcase classname=\"commbench.accept." + XmlEscape(c.preflight ? "preflight" : "check") + "\" name=\"" +
         XmlEscape(TestName(c)) + "\">";
    if (!c.passed) {
      const std::string figures = Figures(c);
      x += "<failure type=\"" + XmlEscape(std::string(Name(c.kind))) + "\" message=\"" +
           XmlEscape(figures.empty() ? c.reason : figures) + "\">" + XmlEscape(c.reason) + "</failure>";
    }
    x += "</testcase>\n";
  }
  for (const HostVerdict& h : r.hosts) {
    x += "<testcase classname=\"commbench.accept.host\" name=\"" + XmlEscape(h.host) + "\">";
    if (!h.passed) {
      std::string all;
      for (const std::string& why : h.reasons) all += why + "\n";
      x += "<failure type=\"" + XmlEscape(Joined(h.reason_kinds)) + "\" message=\"" +
           XmlEscape(h.reasons.empty() ? "failed" : h.reasons.front()) + "\">" + XmlEscape(all) + "</failure>";
    }
    x += "</testcase>\n";
  }
  x += "</testsuite></testsuites>\n";
  return x;
}

// One row per bisection level: the block size, the pass line and the blocks under it (hosts and busbw).
std::string BisectionMarkdown(const std::vector<BisectionTable>& tables) {
  std::string m;
  for (const BisectionTable& t : tables) {
    m += "\n**Bisection**, " + std::string(Name(t.op)) + " " + FormatBytes(t.bytes) +
         ":\n\n| level | hosts per block | typical GB/s | pass line GB/s | blocks below it |\n|---|---|---|---|---|\n";
    for (const LevelVerdict& level : t.levels) {
      std::string failed;
      for (const BlockVerdict& b : level.blocks) {
        if (!b.failed) continue;
        std::string hosts;
        for (int h : b.hosts) hosts += (hosts.empty() ? "" : " + ") + t.hosts.at(static_cast<size_t>(h));
        failed += (failed.empty() ? "" : "<br>") + MarkdownText(hosts) + " (" + Num(b.gbps) + " GB/s)";
      }
      m += "| " + std::to_string(level.level) + " | " + std::to_string(level.block_hosts) + " | " +
           Num(level.typical_gbps) + " | " + Num(level.threshold_gbps) + " | " + (failed.empty() ? "none" : failed) +
           " |\n";
    }
  }
  return m;
}

std::string AcceptanceHostLines(const AcceptanceReport& r) {
  std::string out;
  // A run that could not judge passes no host: a drain script reading "pass" would accept it.
  const bool judged = !r.PreflightFailed() && !r.Busy();
  for (const HostVerdict& h : r.hosts) {
    const std::string verdict = judged || !h.passed ? Verdict(h.passed) : "unjudged";
    // A host name from the fleet's file: one escaped word on its line.
    out += Printable(h.host) + " " + verdict + " " + (h.reason_kinds.empty() ? "-" : Joined(h.reason_kinds)) + "\n";
  }
  return out;
}

std::string AcceptanceToMarkdown(const AcceptanceReport& r) {
  std::string m = "### commbench accept: " +
                  std::string(r.PreflightFailed() ? "could not run (pre-flight)"
                              : r.passed          ? "pass"
                              : r.Busy()          ? "could not judge (the host was busy)"
                                                  : "fail") +
                  "\n\n";
  int failed = 0;
  for (const Check& c : r.checks) failed += !c.passed;
  int hosts_failed = 0;
  for (const HostVerdict& h : r.hosts) hosts_failed += !h.passed;
  m += std::to_string(r.checks.size() - failed) + " of " + std::to_string(r.checks.size()) + " checks passed; " +
       std::to_string(r.hosts.size() - hosts_failed) + " of " + std::to_string(r.hosts.size()) + " hosts passed.\n";
  if (!r.suspects.empty()) {
    m += "\n**Suspects**, most likely first:\n\n| # | suspect | score | evidence |\n|---|---|---|---|\n";
    for (size_t i = 0; i < r.suspects.size(); ++i) {
      const AcceptanceSuspect& s = r.suspects[i];
      std::string evidence;
      for (const std::string& e : s.evidence) evidence += (evidence.empty() ? "" : "<br>") + MarkdownText(e);
      m += "| " + std::to_string(i + 1) + " | " + MarkdownText(Who(s)) + " | " + Num(s.score) + " | " + evidence +
           " |\n";
    }
  } else if (!r.passed) {
    m += "\nNo suspect could be localised.\n";
  }
  if (failed > 0) {
    m += "\n**Failed checks**:\n\n| check | kind | host | measured | limit | reason |\n|---|---|---|---|---|---|\n";
    for (const Check& c : r.checks) {
      if (c.passed) continue;
      m += "| " + MarkdownText(c.name) + " | " + std::string(Name(c.kind)) + " | " + MarkdownText(c.host) + " | " +
           Num(c.measured) + (c.unit.empty() ? "" : " " + c.unit) + " | " + Num(c.limit) + " | " +
           MarkdownText(c.reason) + " |\n";
    }
  }
  if (!r.hosts.empty()) {
    m += "\n| host | verdict | reason kinds | points | pair partners passed | host busbw GB/s | pair busbw GB/s |\n"
         "|---|---|---|---|---|---|---|\n";
    for (const HostVerdict& h : r.hosts) {
      m += "| " + MarkdownText(h.host) + " | " + Verdict(h.passed) + " | " +
           (h.reason_kinds.empty() ? "-" : Joined(h.reason_kinds)) + " | " + std::to_string(h.points) + " | " +
           std::to_string(h.partners_passed) + " / " + std::to_string(h.partners) + " | " + Num(h.host_busbw_gbps) +
           " | " + Num(h.pair_busbw_gbps) + " |\n";
    }
  }
  m += BisectionMarkdown(r.bisections);
  for (const std::string& n : r.notes) m += "\n- " + MarkdownText(n);
  if (!r.notes.empty()) m += "\n";
  return m;
}

}  // namespace commbench::accept
