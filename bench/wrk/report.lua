-- Appended to a scenario script by npm run bench (bench/lib/wrk.ts): at the end
-- of the run, one line of JSON with what wrk measured, so the benchmark reads
-- numbers instead of wrk's human-readable text (which has no p95).
-- Bodies a scenario's checks refused and checked (graphql-check.lua), summed over threads.
local threads = {}
setup = function(thread) table.insert(threads, thread) end
done = function(summary, latency, requests)
  local e = summary.errors
  local bad, checked = 0, 0
  for _, thread in ipairs(threads) do
    bad = bad + (thread:get("bad_bodies") or 0)
    checked = checked + (thread:get("checked_bodies") or 0)
  end
  io.write(string.format(
    'WRK_REPORT {"requests":%d,"duration_us":%d,"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d},' ..
    '"bodies":{"checked":%d,"bad":%d},"latency_us":{"p50":%d,"p95":%d,"p99":%d,"mean":%.1f,"max":%d}}\n',
    summary.requests, summary.duration, e.connect, e.read, e.write, e.status, e.timeout, checked, bad,
    latency:percentile(50), latency:percentile(95), latency:percentile(99), latency.mean, latency.max))
end
