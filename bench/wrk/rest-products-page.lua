-- wrk: GET /products?page=P&count=5 for random P up to the last page (PRODUCT_COUNT products).
local last_page = math.max(1, math.ceil(tonumber(os.getenv("PRODUCT_COUNT") or "10000") / 5))
math.randomseed(os.time())
request = function()
  return wrk.format("GET", "/products?page=" .. math.random(1, last_page) .. "&count=5")
end
