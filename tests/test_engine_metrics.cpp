#include <gtest/gtest.h>

#include <stdexcept>
#include <thread>
#include <vector>

#include "engine/metrics.hpp"
#include "engine/process_stats.hpp"

using cuzk::engine::Metrics;

TEST(Metrics, RendersExactText) {
  Metrics m;
  m.counter("cuzk_proofs_total", "Proofs completed.", {{"kind", "porep_c2"}}).inc();
  m.counter("cuzk_proofs_total", "ignored: help comes from the first registration", {{"kind", "porep_c2"}}).inc(2);
  m.counter("cuzk_proofs_total", "", {{"kind", "generic"}}).inc(0.5);
  m.gauge("cuzk_memory_used_bytes", "Bytes reserved from the memory budget.").set(1073741824);
  auto& h = m.histogram("cuzk_stage_seconds", "Stage latency.", {{"stage", "prove"}}, {0.1, 1, 10});
  h.observe(0.05);
  h.observe(0.1);  // le is inclusive
  h.observe(3);
  h.observe(100);

  const std::string expected =
      "# HELP cuzk_memory_used_bytes Bytes reserved from the memory budget.\n"
      "# TYPE cuzk_memory_used_bytes gauge\n"
      "cuzk_memory_used_bytes 1073741824\n"
      "# HELP cuzk_proofs_total Proofs completed.\n"
      "# TYPE cuzk_proofs_total counter\n"
      "cuzk_proofs_total{kind=\"generic\"} 0.5\n"
      "cuzk_proofs_total{kind=\"porep_c2\"} 3\n"
      "# HELP cuzk_stage_seconds Stage latency.\n"
      "# TYPE cuzk_stage_seconds histogram\n"
      "cuzk_stage_seconds_bucket{stage=\"prove\",le=\"0.1\"} 2\n"
      "cuzk_stage_seconds_bucket{stage=\"prove\",le=\"1\"} 2\n"
      "cuzk_stage_seconds_bucket{stage=\"prove\",le=\"10\"} 3\n"
      "cuzk_stage_seconds_bucket{stage=\"prove\",le=\"+Inf\"} 4\n"
      "cuzk_stage_seconds_sum{stage=\"prove\"} 103.15\n"
      "cuzk_stage_seconds_count{stage=\"prove\"} 4\n";
  EXPECT_EQ(m.render(), expected);
}

TEST(Metrics, SameNameAndLabelsIsTheSameObject) {
  Metrics m;
  auto& a = m.counter("c_total", "h", {{"a", "1"}, {"b", "2"}});
  auto& b = m.counter("c_total", "h", {{"b", "2"}, {"a", "1"}});  // label order does not matter
  auto& c = m.counter("c_total", "h", {{"a", "1"}, {"b", "3"}});
  EXPECT_EQ(&a, &b);
  EXPECT_NE(&a, &c);
  EXPECT_EQ(&m.gauge("g", "h"), &m.gauge("g", "h"));
  EXPECT_EQ(&m.histogram("h_seconds", "h"), &m.histogram("h_seconds", "h", {}, {1, 2}));
}

TEST(Metrics, EscapesLabelValuesAndHelp) {
  Metrics m;
  m.gauge("g", "line one\nback\\slash \"quoted\"", {{"path", "C:\\dir\n\"x\""}}).set(-2.5);
  EXPECT_EQ(m.render(),
            "# HELP g line one\\nback\\\\slash \"quoted\"\n"
            "# TYPE g gauge\n"
            "g{path=\"C:\\\\dir\\n\\\"x\\\"\"} -2.5\n");
}

TEST(Metrics, HistogramBucketsAreCumulative) {
  Metrics m;
  auto& h = m.histogram("lat_seconds", "h");  // default latency buckets
  const auto bounds = cuzk::engine::default_latency_buckets();
  ASSERT_EQ(h.bounds(), bounds);
  EXPECT_EQ(bounds.front(), 0.005);
  EXPECT_EQ(bounds.back(), 600.0);
  for (size_t i = 1; i < bounds.size(); ++i) EXPECT_LT(bounds[i - 1], bounds[i]);
  for (double v : {0.001, 0.007, 0.3, 0.3, 42.0, 1000.0}) h.observe(v);
  const auto counts = h.cumulative_counts();
  ASSERT_EQ(counts.size(), bounds.size() + 1);
  for (size_t i = 1; i < counts.size(); ++i) EXPECT_LE(counts[i - 1], counts[i]);
  EXPECT_EQ(counts[0], 1u);                  // 0.001 <= 0.005
  EXPECT_EQ(counts[1], 2u);                  // 0.007 <= 0.01
  EXPECT_EQ(counts.back(), 6u);              // +Inf: all of them
  EXPECT_EQ(counts[counts.size() - 2], 5u);  // 1000 s is above 600
  const std::string text = m.render();
  EXPECT_NE(text.find("lat_seconds_bucket{le=\"0.005\"} 1\n"), std::string::npos) << text;
  EXPECT_NE(text.find("lat_seconds_bucket{le=\"600\"} 5\n"), std::string::npos) << text;
  EXPECT_NE(text.find("lat_seconds_bucket{le=\"+Inf\"} 6\n"), std::string::npos) << text;
  EXPECT_NE(text.find("lat_seconds_count 6\n"), std::string::npos) << text;
}

TEST(Metrics, CollectorsRefreshAtRender) {
  Metrics m;
  int depth = 0;
  m.add_collector([&] {
    // Collectors may look metrics up (and create them) while render() runs.
    m.gauge("queue_depth", "Queued items.", {{"queue", "synthesis"}}).set(depth);
  });
  depth = 3;
  EXPECT_EQ(m.render(),
            "# HELP queue_depth Queued items.\n# TYPE queue_depth gauge\nqueue_depth{queue=\"synthesis\"} 3\n");
  depth = 5;
  EXPECT_NE(m.render().find("queue_depth{queue=\"synthesis\"} 5\n"), std::string::npos);
}

TEST(Metrics, InvalidNamesAreProgrammingErrors) {
  Metrics m;
  EXPECT_THROW(m.counter("1bad", "h"), std::invalid_argument);
  EXPECT_THROW(m.counter("bad-name", "h"), std::invalid_argument);
  EXPECT_THROW(m.counter("ok", "h", {{"bad-label", "v"}}), std::invalid_argument);
  EXPECT_THROW(m.counter("ok", "h", {{"__reserved", "v"}}), std::invalid_argument);
  EXPECT_THROW(m.counter("ok", "h", {{"a", "1"}, {"a", "2"}}), std::invalid_argument);
  EXPECT_THROW(m.histogram("h_seconds", "h", {{"le", "1"}}), std::invalid_argument);
  EXPECT_THROW(m.histogram("h2_seconds", "h", {}, {1, 1}), std::invalid_argument);
  m.counter("twice", "h");
  EXPECT_THROW(m.gauge("twice", "h"), std::invalid_argument);
  EXPECT_NO_THROW(m.counter("ns:sub_total", "h", {{"_x", "v"}}));
}

TEST(Metrics, ConcurrentUpdates) {
  Metrics m;
  auto& c = m.counter("c_total", "h");
  auto& g = m.gauge("g", "h");
  auto& h = m.histogram("h_seconds", "h", {}, {1});
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 10000; ++i) {
        c.inc();
        g.add(1);
        h.observe(i % 2 ? 0.5 : 2.0);
        if (i % 1000 == 0) (void)m.render();
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(c.value(), 40000.0);
  EXPECT_EQ(g.value(), 40000.0);
  EXPECT_EQ(h.cumulative_counts(), (std::vector<uint64_t>{20000, 40000}));
  EXPECT_EQ(h.sum(), 50000.0);
}

TEST(ProcessStats, ReadsProc) {
  // This test runs on Linux, where /proc is there; 0 would mean "unreadable".
  const uint64_t rss = cuzk::engine::process_rss_bytes();
  const uint64_t peak = cuzk::engine::process_peak_rss_bytes();
  const uint64_t total = cuzk::engine::mem_total_bytes();
  EXPECT_GT(rss, 1u << 20);
  EXPECT_GE(peak, rss);
  EXPECT_GT(total, rss);
  EXPECT_LE(cuzk::engine::mem_available_bytes(), total);
  EXPECT_GE(cuzk::engine::hardware_threads(), 1u);
}
