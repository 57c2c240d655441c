-- wrk: GET /products/:id/styles for random ids in [1, ID_MAX] (the k6 rest-styles scenario).
local id_max = tonumber(os.getenv("ID_MAX") or "10000")
math.randomseed(os.time())
request = function()
  return wrk.format("GET", "/products/" .. math.random(1, id_max) .. "/styles")
end
