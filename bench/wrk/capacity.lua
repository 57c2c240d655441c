-- wrk: one route of npm run bench:capacity (bench/capacity.ts), described by
-- the environment: CAP_METHOD, CAP_PATH and CAP_BODY (the path and body, with
-- {id} for a random product id in [1, ID_MAX] and {page} for a random page in
-- [1, PAGE_MAX]), and CAP_CONTENT_TYPE for a body.
local id_max = tonumber(os.getenv("ID_MAX") or "10000")
local page_max = tonumber(os.getenv("PAGE_MAX") or "1000")
local method = os.getenv("CAP_METHOD") or "GET"
local path = os.getenv("CAP_PATH") or "/"
local body = os.getenv("CAP_BODY") or ""
math.randomseed(os.time())
if body ~= "" then wrk.headers["Content-Type"] = os.getenv("CAP_CONTENT_TYPE") or "application/json" end
local function fill(text)
  return (text:gsub("{id}", tostring(math.random(1, id_max))):gsub("{page}", tostring(math.random(1, page_max))))
end
request = function()
  if body == "" then return wrk.format(method, fill(path)) end
  return wrk.format(method, fill(path), nil, fill(body))
end
