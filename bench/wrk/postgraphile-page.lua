-- wrk: the product page from PostGraphile (npm run bench:postgraphile,
-- bench/lib/postgraphile-page.ts), POSTed with random product ids in
-- [1, ID_MAX]. PGL_QUERY_JSON is the operation's text as a JSON string (its id
-- variable is an Int there). Every CHECK_EVERY-th body must be a 200 with
-- `data.product` (an object, or null for an id in a gap) and no `errors`.
local id_max = tonumber(os.getenv("ID_MAX") or "10000")
local query_json = os.getenv("PGL_QUERY_JSON")
local check_every = tonumber(os.getenv("CHECK_EVERY") or "10")
math.randomseed(os.time())
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
request = function()
  local body = '{"query":' .. query_json .. ',"variables":{"id":' .. math.random(1, id_max) .. '}}'
  return wrk.format(nil, "/graphql", nil, body)
end
local seen = 0
bad_bodies = 0
checked_bodies = 0
local function good(status, body)
  if status ~= 200 or string.find(body, '"errors"', 1, true) then return false end
  if string.find(body, '^{"data":{"product":null}}') then return true end
  return string.find(body, '^{"data":{"product":{"rowId":%d+') ~= nil and string.find(body, '"styles":{', 1, true) ~= nil
end
response = function(status, headers, body)
  seen = seen + 1
  if seen % check_every ~= 0 then return end
  checked_bodies = checked_bodies + 1
  if not good(status, body) then bad_bodies = bad_bodies + 1 end
end
