#include "tools/commbench/config_flags.h"

#include <CLI/CLI.hpp>
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

// Keys spelled with '_' as the flags spell them ('-'), with their lines; a key given both ways is a problem.
json Normalise(const config::ConfigFile& file, const json& values, const std::string& prefix, config::ConfigFile* out,
               std::vector<std::string>* problems) {
  json normalised = json::object();
  for (const auto& [key, value] : values.items()) {
    const std::string name = KeyName(key);
    const int line = file.LineOf(prefix + key);
    if (normalised.contains(name)) {
      problems->push_back(file.path + ":" + std::to_string(line) + ": " + prefix + key + ": given twice (as " + name +
                          ")");
      continue;
    }
    normalised[name] = value;
    out->lines[prefix + name] = line;
  }
  return normalised;
}

}  // namespace

std::vector<std::string> ApplyConfigFile(const std::string& path, CLI::App* app, const ConfigScope& scope) {
  auto file = config::ReadConfigFile(path);
  if (!file.ok()) return {file.status().message()};
  // The keys: every long flag of the command but --help and --config; the section's own under `gate:`.
  std::map<std::string, CLI::Option*> flags;
  std::vector<config::KeySpec> keys, section_keys;
  for (CLI::Option* opt : app->get_options()) {
    if (opt->get_lnames().empty()) continue;  // positional
    const std::string name = opt->get_lnames().front();
    if (name == "help" || name == "config") continue;
    flags[name] = opt;
    (scope.section_flags.count(name) ? section_keys : keys).push_back(config::Key(name, TypeOf(opt)));
  }
  config::ConfigFile normalised = *file;
  normalised.lines.clear();
  normalised.lines[""] = 1;
  std::vector<std::string> problems;
  json top = file->values;
  const bool has_section = top.contains(kConfigSection);
  json section = has_section ? top[kConfigSection] : json::object();
  top.erase(kConfigSection);
  normalised.values = Normalise(*file, top, "", &normalised, &problems);
  if (scope.own_section) {
    config::KeySpec k = config::Key(kConfigSection, config::ValueType::kObject);
    k.children = section_keys;
    keys.push_back(k);
    if (has_section) {
      normalised.lines[kConfigSection] = file->LineOf(kConfigSection);
      normalised.values[kConfigSection] =
          section.is_object() ? Normalise(*file, section, std::string(kConfigSection) + ".", &normalised, &problems)
                              : section;
    }
  } else if (has_section && !section.is_object()) {
    problems.push_back(path + ":" + std::to_string(file->LineOf(kConfigSection)) + ": " + kConfigSection +
                       ": expected a mapping, got " + section.dump());
  }
  std::vector<std::string> checked = config::CheckConfig(normalised, keys);
  problems.insert(problems.end(), checked.begin(), checked.end());
  if (!problems.empty()) return problems;
  auto apply = [&](const std::string& name, const json& value, const std::string& key) {
    CLI::Option* opt = flags.at(name);
    if (opt->count() > 0) return;  // the command line wins
    const bool repeated = opt->get_items_expected_max() > 1;
    try {
      opt->add_result(Values(value, repeated));
      opt->run_callback();
    } catch (const CLI::Error& e) {
      problems.push_back(path + ":" + std::to_string(normalised.LineOf(key)) + ": " + key + ": " + e.what());
    }
  };
  for (const auto& [name, value] : normalised.values.items()) {
    if (name == kConfigSection) {
      for (const auto& [inner, v] : value.items()) apply(inner, v, std::string(kConfigSection) + "." + inner);
    } else {
      apply(name, value, name);
    }
  }
  return problems;
}

}  // namespace commbench::cli
