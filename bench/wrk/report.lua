-- Appended to a scenario script by npm run bench (bench/lib/wrk.ts): at the end
-- of the run, one line of JSON with what wrk measured, so the benchmark reads
-- numbers instead of wrk's human-readable text (which has no p95).
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'WRK_REPORT {"requests":%d,"duration_us":%d,"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d},' ..
    '"latency_us":{"p50":%d,"p95":%d,"p99":%d,"mean":%.1f,"max":%d}}\n',
    summary.requests, summary.duration, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(95), latency:percentile(99), latency.mean, latency.max))
end
