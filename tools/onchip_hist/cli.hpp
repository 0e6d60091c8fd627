// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// onchip-hist's host side: argument parsing, summary statistics and output formatting (table with a terminal bar
// chart, CSV, JSON). Plain C++17 without CUDA, so that CI tests it on machines without a GPU.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace onchip_hist {

enum class sample_type { u8, i8, u16, i16, u32, i32, u64, i64, f32, f64 };
enum class output_format { table, csv, json };

struct type_info {
  sample_type type;
  const char* name;
  std::size_t bytes;
  bool integral;
  double min, max_plus_one;  // default range for 8- and 16-bit integers
};

inline const std::vector<type_info>& types() {
  static const std::vector<type_info> all = {
      {sample_type::u8, "u8", 1, true, 0, 256},     {sample_type::i8, "i8", 1, true, -128, 128},
      {sample_type::u16, "u16", 2, true, 0, 65536}, {sample_type::i16, "i16", 2, true, -32768, 32768},
      {sample_type::u32, "u32", 4, true, 0, 0},     {sample_type::i32, "i32", 4, true, 0, 0},
      {sample_type::u64, "u64", 8, true, 0, 0},     {sample_type::i64, "i64", 8, true, 0, 0},
      {sample_type::f32, "f32", 4, false, 0, 0},    {sample_type::f64, "f64", 8, false, 0, 0}};
  return all;
}

inline const type_info& info(sample_type t) {
  for (const auto& i : types()) {
    if (i.type == t) { return i; }
  }
  return types().front();
}

struct options {
  std::vector<std::string> inputs;  // none: the built-in demo data set; "-": standard input
  sample_type type = sample_type::u8;
  bool type_given = false;
  int bins = 0;  // 0: the default for the type
  bool range_given = false;
  double lower = 0, upper = 0;
  std::string levels_file;
  int channels = 1, active = 1;
  std::string weights_file;
  output_format format = output_format::table;
  bool chart = true;
  int progress = -1;  // -1: when standard error is a terminal
  std::size_t chunk_bytes = std::size_t{64} << 20;
  bool help = false;
};

inline const char* usage() {
  return "usage: onchip-hist [options] [FILE...]     (FILE '-' reads standard input; no FILE: a built-in demo)\n"
         "  -t, --type T          sample type: u8 i8 u16 i16 u32 i32 u64 i64 f32 f64 (default u8; demo f32)\n"
         "  -b, --bins N          number of bins (default 256; demo 64)\n"
         "  -r, --range LO HI     bins evenly over [LO, HI) (default: the whole type for 8/16-bit integers)\n"
         "  -l, --levels FILE     bins between sorted levels (text: one number per line)\n"
         "      --channels C      C interleaved u8 channels per pixel (1..4, default 1)\n"
         "      --active A        histogram the first A channels (default C)\n"
         "  -w, --weights FILE    f32 weights, one per f32/f64 sample (binary, same count as the samples)\n"
         "  -f, --format F        table (default, with a bar chart), csv or json\n"
         "      --no-chart        table without the bar chart\n"
         "      --progress / --no-progress   progress bar on standard error (default: when it is a terminal)\n"
         "      --chunk-mb M      read in chunks of M MiB through pinned buffers (default 64)\n"
         "  -h, --help            this text\n";
}

struct parsed {
  options opts;
  std::string error;  // empty when the arguments are valid
};

inline bool parse_number(const std::string& text, double& out) {
  if (text.empty()) { return false; }
  char* end = nullptr;
  out = std::strtod(text.c_str(), &end);
  return end != nullptr && *end == '\0' && !std::isnan(out);
}

inline bool parse_int(const std::string& text, long long& out) {
  if (text.empty()) { return false; }
  char* end = nullptr;
  out = std::strtoll(text.c_str(), &end, 10);
  return end != nullptr && *end == '\0';
}

/// Whether `x` can be a level of integer samples: a whole number that a 64-bit integer holds.
inline bool whole_level(double x) {
  return std::isfinite(x) && x == std::floor(x) && x >= -9223372036854775808.0 && x < 9223372036854775808.0;
}

/// The levels of a levels file checked for the sample type: an empty string, or the sentence saying what is wrong.
inline std::string check_levels(const std::vector<double>& levels, sample_type type) {
  const type_info& t = info(type);
  for (double x : levels) {
    if (t.integral && !whole_level(x)) {
      char text[64];
      std::snprintf(text, sizeof text, "%.17g", x);
      return std::string("levels of ") + t.name + " samples must be whole numbers from -2^63 to 2^63 - 1, got " +
             text;
    }
  }
  return {};
}

/// What one unit of an input file is, for the size message: a sample, or a pixel of `channels` samples.
inline std::string unit_name(int channels) {
  return channels > 1 ? "one pixel of " + std::to_string(channels) + " samples" : "one sample";
}

/// Parses the command line; every error is a sentence for the user.
// Whether the arguments ask for help (which wins over any other argument, good or bad; not after "--").
inline bool wants_help(int argc, const char* const* argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--") { return false; }
    if (a == "-h" || a == "--help") { return true; }
  }
  return false;
}

// The arguments one at a time; an option's values from the following arguments, or the first of them after '='
// (--option=value).
class argument_reader {
 public:
  argument_reader(int argc, const char* const* argv) : argc_(argc), argv_(argv) {}
  // The next argument (unless `raw`, its name alone for --option=value); false at the end.
  bool next(std::string& a, bool raw = false) {
    if (++i_ >= argc_) { return false; }
    a = argv_[i_];
    has_inline_ = !raw && a.rfind("--", 0) == 0 && a.find('=') != std::string::npos;
    if (has_inline_) {
      inline_value_ = a.substr(a.find('=') + 1);
      a = a.substr(0, a.find('='));
    }
    return true;
  }
  // The option's next value; false if there is none.
  bool value(std::string& out) {
    if (has_inline_) {
      out = inline_value_;
      has_inline_ = false;
      return true;
    }
    if (i_ + 1 >= argc_) { return false; }
    out = argv_[++i_];
    return true;
  }

 private:
  int argc_;
  const char* const* argv_;
  int i_ = 0;
  std::string inline_value_;
  bool has_inline_ = false;
};

// Reads option `a` (and its values) into `o`: "" when done, else why it is wrong. An argument that is no option
// is an input file.
inline std::string parse_option(const std::string& a, argument_reader& r, options& o, bool& active_given) {
  std::string v, w;
  long long n = 0;
  if (a == "-h" || a == "--help") {  // --help=anything (the bare forms: wants_help)
    o.help = true;
  } else if (a == "-t" || a == "--type") {
    if (!r.value(v)) { return a + " needs a sample type (u8 i8 u16 i16 u32 i32 u64 i64 f32 f64)"; }
    const auto found =
        std::find_if(types().begin(), types().end(), [&](const type_info& t) { return v == t.name; });
    if (found == types().end()) {
      return "unknown sample type '" + v + "' (u8 i8 u16 i16 u32 i32 u64 i64 f32 f64)";
    }
    o.type = found->type;
    o.type_given = true;
  } else if (a == "-b" || a == "--bins") {
    if (!r.value(v)) { return a + " needs a value: a bin count from 1 to 2^30"; }
    if (!parse_int(v, n) || n < 1 || n > (1 << 30)) {
      return a + " needs a bin count from 1 to 2^30, got '" + v + "'";
    }
    o.bins = static_cast<int>(n);
  } else if (a == "-r" || a == "--range") {
    if (!r.value(v) || !r.value(w)) { return a + " needs two numbers: LO HI"; }
    if (!parse_number(v, o.lower) || !parse_number(w, o.upper)) {
      return "bad range '" + v + " " + w + "': LO and HI must be numbers";
    }
    if (!std::isfinite(o.lower) || !std::isfinite(o.upper)) {
      return "bad range '" + v + " " + w + "': LO and HI must be finite";
    }
    if (!(o.lower < o.upper)) { return "bad range [" + v + ", " + w + "): LO must be below HI"; }
    o.range_given = true;
  } else if (a == "-l" || a == "--levels") {
    if (!r.value(o.levels_file)) { return a + " needs a file of levels"; }
  } else if (a == "--channels" || a == "--active") {
    if (!r.value(v) || !parse_int(v, n) || n < 1 || n > 4) { return a + " needs a number from 1 to 4"; }
    (a == "--channels" ? o.channels : o.active) = static_cast<int>(n);
    active_given = active_given || a == "--active";
  } else if (a == "-w" || a == "--weights") {
    if (!r.value(o.weights_file)) { return a + " needs a file of f32 weights"; }
  } else if (a == "-f" || a == "--format") {
    if (!r.value(v)) { return a + " needs table, csv or json"; }
    if (v != "table" && v != "csv" && v != "json") { return "unknown format '" + v + "' (table, csv or json)"; }
    o.format = v == "table" ? output_format::table : v == "csv" ? output_format::csv : output_format::json;
  } else if (a == "--no-chart") {
    o.chart = false;
  } else if (a == "--progress" || a == "--no-progress") {
    o.progress = a == "--progress" ? 1 : 0;
  } else if (a == "--chunk-mb") {
    if (!r.value(v) || !parse_int(v, n) || n < 1 || n > 4096) { return a + " needs a size from 1 to 4096 MiB"; }
    o.chunk_bytes = static_cast<std::size_t>(n) << 20;
  } else if (a.size() > 1 && a[0] == '-' && a != "-") {
    return "unknown option '" + a + "' (see --help; '--' before a file name that starts with '-')";
  } else {
    o.inputs.push_back(a);
  }
  return "";
}

// Options that do not go together: "" when they do, else why.
inline std::string check_combination(options& o, bool active_given) {
  if (!active_given) { o.active = o.channels; }
  if (o.active > o.channels) { return "--active must not exceed --channels"; }
  if (o.range_given && !o.levels_file.empty()) { return "give --range or --levels, not both"; }
  if (!o.weights_file.empty() && o.channels != 1) { return "--weights works with one channel only"; }
  if (!o.weights_file.empty() && o.type != sample_type::f32 && o.type != sample_type::f64) {
    return "--weights works with f32 and f64 samples";
  }
  if (o.channels > 1 && o.type != sample_type::u8) {
    return "--channels works with u8 samples (RGBA and other interleaved bytes)";
  }
  if (o.channels > 1 && !o.levels_file.empty()) { return "--levels works with one channel only"; }
  return "";
}

// The defaults that depend on other options (the demo's type, range and bins; the whole range of 8- and 16-bit
// integers), the range checked against the sample type, and standard input read once: "" when all is valid, else
// why not.
inline std::string complete_range(options& o) {
  if (o.inputs.empty()) {  // the demo: f32 unless a type was given
    if (!o.type_given) { o.type = sample_type::f32; }
    if (!info(o.type).integral && !o.range_given && o.levels_file.empty()) {
      o.lower = -4;
      o.upper = 4;
      o.range_given = true;
    }
    if (o.bins == 0) { o.bins = 64; }
    if (!o.weights_file.empty()) { return "--weights needs input files"; }
  }
  const type_info& t = info(o.type);
  if (!o.range_given && o.levels_file.empty()) {
    if (t.max_plus_one == 0) {
      return std::string("--range LO HI (or --levels) is needed for ") + t.name + " samples";
    }
    o.lower = t.min;
    o.upper = t.max_plus_one;
    o.range_given = true;
  }
  if (o.bins == 0) { o.bins = 256; }
  if (t.integral && o.range_given && !(whole_level(o.lower) && whole_level(o.upper))) {
    return std::string("the range of ") + t.name + " samples must be whole numbers from -2^63 to 2^63 - 1";
  }
  if (o.type == sample_type::f32 && o.range_given) {  // f32 samples are binned between float bounds
    const float lo = static_cast<float>(o.lower), hi = static_cast<float>(o.upper);
    if (!std::isfinite(lo) || !std::isfinite(hi) || !(lo < hi)) {
      char text[160];
      std::snprintf(text, sizeof text, "the range [%.9g, %.9g) of f32 samples is [%.9g, %.9g) as floats", o.lower,
                    o.upper, static_cast<double>(lo), static_cast<double>(hi));
      return std::string(text) + ": LO and HI must be finite floats (within +-3.4e38) with LO below HI";
    }
  }
  if (std::count(o.inputs.begin(), o.inputs.end(), std::string("-")) > 1) {
    return "standard input ('-') can be read once";
  }
  return "";
}

inline parsed parse(int argc, const char* const* argv) {
  parsed p;
  options& o = p.opts;
  if (wants_help(argc, argv)) {
    o.help = true;
    return p;
  }
  argument_reader r(argc, argv);
  bool active_given = false;
  std::string a;
  while (r.next(a)) {
    if (a == "--") {  // after it, every argument is a file name
      while (r.next(a, true)) { o.inputs.push_back(a); }
      break;
    }
    if (std::string why = parse_option(a, r, o, active_given); !why.empty()) {
      p.error = why;
      return p;
    }
  }
  if (o.help) { return p; }
  p.error = check_combination(o, active_given);
  if (p.error.empty()) { p.error = complete_range(o); }
  return p;
}

/// Why no GPU can be used, in a sentence a person can act on: no NVIDIA driver installed at all, a driver older
/// than the CUDA runtime this program was built with (versions as CUDA reports them, 1000 * major + 10 * minor),
/// or a driver that sees no device.
inline std::string no_device_message(bool driver_installed, int driver_version, int runtime_version) {
  auto version = [](int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); };
  if (!driver_installed) {
    return "onchip-hist: no NVIDIA driver is installed on this machine (libcuda.so.1 was not found); onchip-hist "
           "needs an NVIDIA GPU and its driver";
  }
  if (driver_version < runtime_version) {
    return "onchip-hist: the NVIDIA driver supports CUDA " + version(driver_version) +
           ", but onchip-hist was built "
           "with CUDA " +
           version(runtime_version) + "; update the driver";
  }
  return "onchip-hist: no CUDA device found (the NVIDIA driver is installed but sees no GPU); onchip-hist needs "
         "an "
         "NVIDIA GPU";
}

/// Summary statistics of one histogram.
struct summary {
  double total = 0;         // counted (weights summed when weighted)
  double ignored = 0;       // samples in no bin
  double entropy_bits = 0;  // Shannon entropy of the bin distribution
  int min_bin = -1, max_bin = -1;
};

inline summary summarize(const std::vector<double>& counts, double ignored) {
  summary s;
  s.ignored = ignored;
  for (double c : counts) { s.total += c; }
  for (std::size_t b = 0; b < counts.size(); ++b) {
    if (s.min_bin < 0 || counts[b] < counts[s.min_bin]) { s.min_bin = static_cast<int>(b); }
    if (s.max_bin < 0 || counts[b] > counts[s.max_bin]) { s.max_bin = static_cast<int>(b); }
    if (counts[b] > 0 && s.total > 0) {
      const double p = counts[b] / s.total;
      s.entropy_bits -= p * std::log2(p);
    }
  }
  if (s.entropy_bits == 0) { s.entropy_bits = 0; }  // no "-0"
  return s;
}

/// One channel's result: bin edges (num_bins + 1) and counts.
struct channel_result {
  int channel = 0;
  std::vector<double> edges;
  std::vector<double> counts;
  double ignored = 0;
};

struct run_info {
  std::string type;
  std::string source;  // file names, "stdin" or "demo"
  double bytes = 0;
  double seconds = 0;
  bool weighted = false;
  double gpu_seconds = 0;  // the histogram calls alone on the GPU (0: not measured)
};

/// `x` in the fewest digits that read back as exactly `x` (whole numbers without a decimal point).
inline std::string number_text(double x) {
  char b[64];
  if (x == std::floor(x) && std::fabs(x) < 1e15) {
    std::snprintf(b, sizeof b, "%.0f", x);
    return b;
  }
  for (int digits = 6; digits <= 17; ++digits) {
    std::snprintf(b, sizeof b, "%.*g", digits, x);
    if (std::strtod(b, nullptr) == x) { break; }
  }
  return b;
}

/// The bytes, the time and rate end to end (reading, copying to the GPU, counting), and where measured, the time
/// and rate of the histogram calls alone on the GPU.
inline std::string throughput_line(const run_info& r) {
  char b[240];
  const int at = std::snprintf(b, sizeof b, "%.0f bytes in %.3f s: %.2f GB/s", r.bytes, r.seconds,
                               r.seconds > 0 ? r.bytes / r.seconds / 1e9 : 0.0);
  if (r.gpu_seconds > 0) {
    std::snprintf(b + at, sizeof b - static_cast<std::size_t>(at),
                  " end to end; the histogram on the GPU %.4f s: %.2f GB/s", r.gpu_seconds,
                  r.bytes / r.gpu_seconds / 1e9);
  }
  return b;
}

/// A bar of `width` cells for `fraction` (0..1), in eighths of a cell.
inline std::string bar(double fraction, int width) {
  static const char* const eighths[] = {"", "\u258f", "\u258e", "\u258d", "\u258c", "\u258b", "\u258a", "\u2589"};
  const int units = static_cast<int>(std::lround(std::clamp(fraction, 0.0, 1.0) * width * 8));
  std::string out;
  for (int i = 0; i < units / 8; ++i) { out += "\u2588"; }
  out += eighths[units % 8];
  return out;
}

inline std::string format_table(const std::vector<channel_result>& channels, const run_info& run, bool chart) {
  std::string out;
  char line[512];
  for (const auto& ch : channels) {
    const summary s = summarize(ch.counts, ch.ignored);
    if (channels.size() > 1) { out += "channel " + std::to_string(ch.channel) + "\n"; }
    const double peak = s.max_bin >= 0 ? ch.counts[s.max_bin] : 0;
    std::snprintf(line, sizeof line, "%6s  %14s  %14s  %14s\n", "bin", "from", "to", "count");
    out += line;
    for (std::size_t b = 0; b < ch.counts.size(); ++b) {
      std::snprintf(line, sizeof line, "%6zu  %14s  %14s  %14s", b, number_text(ch.edges[b]).c_str(),
                    number_text(ch.edges[b + 1]).c_str(), number_text(ch.counts[b]).c_str());
      out += line;
      if (chart) { out += "  " + bar(peak > 0 ? ch.counts[b] / peak : 0, 40); }
      out += "\n";
    }
    std::snprintf(line, sizeof line, "%s %s, ignored %s, entropy %.4f bits, min bin %d (%s), max bin %d (%s)\n",
                  run.weighted ? "total weight" : "count", number_text(s.total).c_str(),
                  number_text(s.ignored).c_str(), s.entropy_bits, s.min_bin,
                  s.min_bin >= 0 ? number_text(ch.counts[s.min_bin]).c_str() : "-", s.max_bin,
                  s.max_bin >= 0 ? number_text(ch.counts[s.max_bin]).c_str() : "-");
    out += line;
  }
  out += run.type + " samples from " + run.source + "; " + throughput_line(run) + "\n";
  return out;
}

inline std::string format_csv(const std::vector<channel_result>& channels) {
  std::string out = "channel,bin,from,to,count\n";
  for (const auto& ch : channels) {
    for (std::size_t b = 0; b < ch.counts.size(); ++b) {
      out += std::to_string(ch.channel) + "," + std::to_string(b) + "," + number_text(ch.edges[b]) + "," +
             number_text(ch.edges[b + 1]) + "," + number_text(ch.counts[b]) + "\n";
    }
  }
  return out;
}

inline std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char b[8];
      std::snprintf(b, sizeof b, "\\u%04x", c);
      out += b;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

inline std::string format_json(const std::vector<channel_result>& channels, const run_info& run) {
  auto list = [](const std::vector<double>& v) {
    std::string out = "[";
    for (std::size_t i = 0; i < v.size(); ++i) { out += (i ? "," : "") + number_text(v[i]); }
    return out + "]";
  };
  std::string out = "{\"type\":" + json_string(run.type) + ",\"source\":" + json_string(run.source) +
                    ",\"bytes\":" + number_text(run.bytes) + ",\"seconds\":" + number_text(run.seconds) +
                    ",\"gpu_seconds\":" + number_text(run.gpu_seconds) +
                    ",\"weighted\":" + (run.weighted ? "true" : "false") + ",\"channels\":[";
  for (std::size_t c = 0; c < channels.size(); ++c) {
    const auto& ch = channels[c];
    const summary s = summarize(ch.counts, ch.ignored);
    char stats[256];
    std::snprintf(stats, sizeof stats, "\"entropy_bits\":%.6f,\"min_bin\":%d,\"max_bin\":%d", s.entropy_bits,
                  s.min_bin, s.max_bin);
    out += std::string(c ? "," : "") + "{\"channel\":" + std::to_string(ch.channel) +
           ",\"edges\":" + list(ch.edges) + ",\"counts\":" + list(ch.counts) +
           ",\"total\":" + number_text(s.total) + ",\"ignored\":" + number_text(s.ignored) + "," + stats + "}";
  }
  return out + "]}\n";
}

}  // namespace onchip_hist
