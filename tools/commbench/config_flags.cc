#include "tools/commbench/config_flags.h"

#include <algorithm>
#include <map>

#include "lib/config/config_file.h"

namespace commbench::cli {
namespace {

using nlohmann::json;

std::string KeyName(std::string key) {
  std::replace(key.begin(), key.end(), '_', '-');
  return key;
}

std::string Text(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  return v.dump();
}

// The flag's values as the command line would give them.
std::vector<std::string> Values(const json& v, bool repeated) {
  if (!v.is_array()) return {Text(v)};
  std::vector<std::string> out;
  for (const json& e : v) out.push_back(Text(e));
  if (repeated || out.empty()) return out;
  std::string joined;
  for (const std::string& s : out) joined += (joined.empty() ? "" : ",") + s;
  return {joined};
}

config::ValueType TypeOf(const CLI::Option* opt) {
  if (opt->get_type_size() == 0) return config::ValueType::kBool;  // a flag
  const std::string type = opt->get_type_name();
  if (type == "INT" || type == "UINT") return config::ValueType::kInteger;
  if (type == "FLOAT") return config::ValueType::kNumber;
  return config::ValueType::kScalarOrList;
}

}  // namespace

std::vector<std::string> ApplyConfigFile(const std::string& path, CLI::App* app, const std::set<std::string>& exclude) {
  auto file = config::ReadConfigFile(path);
  if (!file.ok()) return {file.status().message()};
  // The keys: every long flag of the command but --help, --config and the excluded ones.
  std::map<std::string, CLI::Option*> flags;
  std::vector<config::KeySpec> keys;
  for (CLI::Option* opt : app->get_options()) {
    if (opt->get_lnames().empty()) continue;  // positional
    const std::string name = opt->get_lnames().front();
    if (name == "help" || name == "config" || exclude.count(name)) continue;
    flags[name] = opt;
    keys.push_back(config::Key(name, TypeOf(opt), opt->get_description().substr(0, 80)));
  }
  // Keys are spelled with '-' or '_': check them as the flags spell them.
  config::ConfigFile normalised = *file;
  normalised.values = json::object();
  std::vector<std::string> problems;
  for (const auto& [key, value] : file->values.items()) {
    const std::string name = KeyName(key);
    if (normalised.values.contains(name)) {
      problems.push_back(path + ":" + std::to_string(file->LineOf(key)) + ": " + key + ": given twice (as " + name +
                         ")");
      continue;
    }
    normalised.values[name] = value;
    normalised.lines[name] = file->LineOf(key);
  }
  for (config::KeySpec& k : keys) k.accepted.clear();  // the list of names is what an unknown key needs
  std::vector<std::string> checked = config::CheckConfig(normalised, keys);
  problems.insert(problems.end(), checked.begin(), checked.end());
  if (!problems.empty()) return problems;
  for (const auto& [name, value] : normalised.values.items()) {
    CLI::Option* opt = flags.at(name);
    if (opt->count() > 0) continue;  // the command line wins
    const bool repeated = opt->get_items_expected_max() > 1;
    try {
      opt->add_result(Values(value, repeated));
      opt->run_callback();
    } catch (const CLI::Error& e) {
      problems.push_back(path + ":" + std::to_string(normalised.LineOf(name)) + ": " + name + ": " + e.what());
    }
  }
  return problems;
}

}  // namespace commbench::cli
