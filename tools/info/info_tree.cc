#include "tools/info/info_tree.h"

#include <cstdio>

namespace weft::info {

namespace {

std::string json_string(const std::string& text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20) {
          char escaped[8];
          std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
          out += escaped;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

}  // namespace

InfoNode& InfoNode::add(std::string key, InfoNode value) {
  std::get<Fields>(value_).emplace_back(std::move(key), std::move(value));
  return *this;
}

InfoNode& InfoNode::push(InfoNode item) {
  std::get<Items>(value_).push_back(std::move(item));
  return *this;
}

const InfoNode* InfoNode::find(const std::string& key) const {
  if (!is_object()) return nullptr;
  for (const auto& [name, node] : std::get<Fields>(value_)) {
    if (name == key) return &node;
  }
  return nullptr;
}

std::string InfoNode::scalar_text() const {
  if (const bool* b = std::get_if<bool>(&value_)) return *b ? "yes" : "no";
  if (const int64_t* n = std::get_if<int64_t>(&value_)) return std::to_string(*n);
  return std::get<std::string>(value_);
}

std::string InfoNode::to_json() const {
  std::string out;
  write_json(out, 0);
  return out + "\n";
}

void InfoNode::write_json(std::string& out, int indent) const {
  const std::string pad(indent + 2, ' ');
  if (const auto* fields = std::get_if<Fields>(&value_)) {
    if (fields->empty()) {
      out += "{}";
      return;
    }
    out += "{\n";
    for (size_t i = 0; i < fields->size(); ++i) {
      out += pad + json_string((*fields)[i].first) + ": ";
      (*fields)[i].second.write_json(out, indent + 2);
      out += i + 1 < fields->size() ? ",\n" : "\n";
    }
    out += std::string(indent, ' ') + "}";
  } else if (const auto* items = std::get_if<Items>(&value_)) {
    if (items->empty()) {
      out += "[]";
      return;
    }
    out += "[\n";
    for (size_t i = 0; i < items->size(); ++i) {
      out += pad;
      (*items)[i].write_json(out, indent + 2);
      out += i + 1 < items->size() ? ",\n" : "\n";
    }
    out += std::string(indent, ' ') + "]";
  } else if (const bool* b = std::get_if<bool>(&value_)) {
    out += *b ? "true" : "false";
  } else if (const int64_t* n = std::get_if<int64_t>(&value_)) {
    out += std::to_string(*n);
  } else {
    out += json_string(std::get<std::string>(value_));
  }
}

std::string InfoNode::to_text() const {
  std::string out;
  if (const auto* fields = std::get_if<Fields>(&value_)) {
    for (const auto& [title, section] : *fields) {
      out += "== " + title + "\n";
      if (section.is_object() || section.is_list()) {
        section.write_text(out, 2);
      } else {
        out += "  " + section.scalar_text() + "\n";
      }
    }
    return out;
  }
  write_text(out, 0);
  return out;
}

void InfoNode::write_text(std::string& out, int indent) const {
  const std::string pad(indent, ' ');
  if (const auto* fields = std::get_if<Fields>(&value_)) {
    if (fields->empty()) out += pad + "(none)\n";
    for (const auto& [key, node] : *fields) {
      if (node.is_object() || node.is_list()) {
        out += pad + key + ":\n";
        node.write_text(out, indent + 2);
      } else {
        out += pad + key + ": " + node.scalar_text() + "\n";
      }
    }
  } else if (const auto* items = std::get_if<Items>(&value_)) {
    if (items->empty()) out += pad + "(none)\n";
    for (const InfoNode& item : *items) {
      if (item.is_object()) {
        // An object in a list: its first field on the "- " line, the rest under it.
        std::string nested;
        item.write_text(nested, indent + 2);
        nested.replace(indent, 2, "- ");
        out += nested;
      } else if (item.is_list()) {
        item.write_text(out, indent + 2);
      } else {
        out += pad + "- " + item.scalar_text() + "\n";
      }
    }
  } else {
    out += pad + scalar_text() + "\n";
  }
}

}  // namespace weft::info
