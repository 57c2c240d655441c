-- wrk: the nested product query (ProductWithStyles in k6/operations.graphql) for random ids.
local id_max = tonumber(os.getenv("ID_MAX") or "10000")
math.randomseed(os.time())
local query = "query ProductWithStyles($id: ID!) { product(id: $id) { id name defaultPrice styles { id name originalPrice salePrice isDefault photos { url thumbnailUrl } skus { id size quantity } } } }"
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
request = function()
  local body = '{"query":"' .. query .. '","variables":{"id":"' .. math.random(1, id_max) .. '"}}'
  return wrk.format(nil, "/graphql", nil, body)
end
