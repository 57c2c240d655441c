-- wrk: the nested product query by APQ hash only, over GET (what a CDN would see).
-- The bench registers the query (POST with its text) before the run.
local id_max = tonumber(os.getenv("ID_MAX") or "10000")
local hash = os.getenv("APQ_HASH")
math.randomseed(os.time())
local extensions = '%7B%22persistedQuery%22%3A%7B%22version%22%3A1%2C%22sha256Hash%22%3A%22' .. hash .. '%22%7D%7D'
request = function()
  local variables = '%7B%22id%22%3A%22' .. math.random(1, id_max) .. '%22%7D'
  return wrk.format("GET", "/graphql?operationName=ProductWithStyles&variables=" .. variables .. "&extensions=" .. extensions)
end
