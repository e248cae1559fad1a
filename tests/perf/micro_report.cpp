// collbench report at scale: the page and the metrics of a 1,024-node hunt document (every pair
// measured, 3 samples each, one slow node), as `collbench report hunt.json -o page.html` renders it.
#include <benchmark/benchmark.h>

#include "tests/perf/simulated_hunt.h"
#include "bench/schedules.h"
#include "reports/export/metrics.h"
#include "reports/export/prometheus.h"
#include "reports/html/page.h"
#include "reports/hunt/hunt_json.h"
#include "reports/pairs/attribution.h"

namespace {

using namespace collbench;

nlohmann::json hunt_document_of(int n) {
  micro::SimulatedHunt hunt(n);
  const Schedule s = pairwise_schedule(n);
  for (int r = 0; r < static_cast<int>(s.size()); ++r)
    for (const auto& [a, b] : s[r].pairs)
      hunt.record.samples.push_back({a, b, r, hunt.rates((a == 17 || b == 17) ? 40.0 : 100.0)});
  const report::Attribution attribution = report::attribute(hunt.record.samples, n);
  return report::hunt_document(hunt.record, attribution, {}, 3);
}

void BM_HuntPage(benchmark::State& state) {
  const std::vector<report::html::PageDocument> docs{{"hunt.json", hunt_document_of(static_cast<int>(state.range(0))),
                                                      std::nullopt}};
  std::size_t bytes = 0;
  for (auto _ : state) {
    const std::string page = report::html::html_page(docs, "benchmark");
    bytes = page.size();
    benchmark::DoNotOptimize(page.data());
  }
  state.counters["page_bytes"] = static_cast<double>(bytes);
}

void BM_HuntMetrics(benchmark::State& state) {
  const nlohmann::json doc = hunt_document_of(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    report::MetricSet set;
    report::add_document_metrics(doc, set);
    benchmark::DoNotOptimize(report::prometheus_text(set).data());
  }
}

}  // namespace

BENCHMARK(BM_HuntPage)->Arg(1024)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_HuntMetrics)->Arg(1024)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
