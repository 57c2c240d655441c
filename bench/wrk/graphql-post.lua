-- wrk: a GraphQL operation of k6/operations.graphql over POST, for random product
-- ids in [1, ID_MAX]. The bench (bench/lib/graphql-scenarios.ts) gives the
-- operation in OPERATION_NAME and its text as a JSON string in QUERY_JSON.
-- Every CHECK_EVERY-th body is checked (graphql-check.lua).
local id_max = tonumber(os.getenv("ID_MAX") or "10000")
local query_json = os.getenv("QUERY_JSON")
local operation = os.getenv("OPERATION_NAME")
math.randomseed(os.time())
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
request = function()
  local body = '{"operationName":"' .. operation .. '","query":' .. query_json .. ',"variables":{"id":"' .. math.random(1, id_max) .. '"}}'
  return wrk.format(nil, "/graphql", nil, body)
end
