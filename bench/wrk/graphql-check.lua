-- Appended to the GraphQL scenario scripts by npm run bench (bench/lib/wrk.ts),
-- before report.lua: every CHECK_EVERY-th response body (10 by default) must be
-- a 200 with `data.product` (an object with an id and, for these operations,
-- styles, or null for an id in a gap of the range) and no `errors`. Failures
-- are counted per thread and reported as `bad_bodies` in the WRK_REPORT line.
local check_every = tonumber(os.getenv("CHECK_EVERY") or "10")
local seen = 0
bad_bodies = 0
checked_bodies = 0
local function good(status, body)
  if status ~= 200 or string.find(body, '"errors"', 1, true) then return false end
  if string.find(body, '^{"data":{"product":null}}') then return true end
  return string.find(body, '^{"data":{"product":{"id":"%d+"') ~= nil and string.find(body, '"styles":[', 1, true) ~= nil
end
response = function(status, headers, body)
  seen = seen + 1
  if seen % check_every ~= 0 then return end
  checked_bodies = checked_bodies + 1
  if not good(status, body) then bad_bodies = bad_bodies + 1 end
end
