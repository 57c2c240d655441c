-- wrk: the shop-mix scenario (bench/lib/shop-mix.ts draws its requests):
-- replays the sequence SHOP_MIX ("s <id>": GET /products/<id>/styles; "p <id>":
-- the GraphQL product page OPERATION_NAME, whose text is QUERY_JSON, by POST;
-- "c|q|f <n>": the n-th body of SHOP_CATEGORY, SHOP_SEARCH or SHOP_FACETS by
-- POST /graphql) from a random line on, wrapping around at its end.
local function lines(file)
  local out = {}
  for line in io.lines(file) do
    if #line > 0 then out[#out + 1] = line end
  end
  return out
end
local sequence = lines(os.getenv("SHOP_MIX"))
local bodies = { c = lines(os.getenv("SHOP_CATEGORY")), q = lines(os.getenv("SHOP_SEARCH")), f = lines(os.getenv("SHOP_FACETS")) }
local query_json = os.getenv("QUERY_JSON")
local operation = os.getenv("OPERATION_NAME")
local json = { ["Content-Type"] = "application/json" }
math.randomseed(os.time())
local at = math.random(1, #sequence)
request = function()
  at = at % #sequence + 1
  local letter, value = string.match(sequence[at], "^(%a) (%d+)$")
  if letter == "s" then return wrk.format("GET", "/products/" .. value .. "/styles") end
  if letter == "p" then
    return wrk.format("POST", "/graphql", json, '{"operationName":"' .. operation .. '","query":' .. query_json .. ',"variables":{"id":"' .. value .. '"}}')
  end
  return wrk.format("POST", "/graphql", json, bodies[letter][tonumber(value)])
end
