-- wrk: a GraphQL operation of k6/operations.graphql by persisted-query hash only,
-- over GET (what a CDN would see), for random product ids in [1, ID_MAX]. The
-- bench registers the text first and gives OPERATION_NAME and APQ_HASH.
-- Every CHECK_EVERY-th body is checked (graphql-check.lua).
local id_max = tonumber(os.getenv("ID_MAX") or "10000")
local hash = os.getenv("APQ_HASH")
local operation = os.getenv("OPERATION_NAME")
math.randomseed(os.time())
local extensions = '%7B%22persistedQuery%22%3A%7B%22version%22%3A1%2C%22sha256Hash%22%3A%22' .. hash .. '%22%7D%7D'
request = function()
  local variables = '%7B%22id%22%3A%22' .. math.random(1, id_max) .. '%22%7D'
  return wrk.format("GET", "/graphql?operationName=" .. operation .. "&variables=" .. variables .. "&extensions=" .. extensions)
end
