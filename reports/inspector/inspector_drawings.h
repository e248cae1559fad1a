// What a collbench.inspector/1 document carries for `collbench report` to draw: each
// communicator's busbw over the job, and for a few communicators a rank x coll_sn heat map of how
// late each rank arrived (LatenessBins). Bounded: at most kDocPoints points a series and
// kDocHeatmaps heat maps of n_ranks x LatenessBins::kBins cells, whatever the length of the job.
#pragma once

#include <nlohmann/json.hpp>

#include "reports/inspector/inspector_job.h"

namespace collbench::report::inspector {

inline constexpr std::size_t kDocPoints = 256;
inline constexpr std::size_t kDocHeatmaps = 4;

// [{"collective", "bytes", "samples_per_point", "t_s": [...], "busbw_gbs": [...]}]: seconds since
// the job's first record; a point is the mean of consecutive kept samples when there are more
// than kDocPoints.
nlohmann::json series_json(const Job& job, const Comm& c);

// The heat maps: the communicators where LATE_RANK names a rank first, then the largest; only
// those of 3 ranks or more with a joined collective. Each: the communicator, its ranks' hosts, the
// late rank (or null), per bin its collectives and the seconds it spans, and per rank and bin the
// mean share the others waited for it, in percent ("late_percent"; below 0: it waited).
nlohmann::json heatmaps_json(const Job& job);

}  // namespace collbench::report::inspector
