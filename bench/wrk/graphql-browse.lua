-- wrk: the browse scenarios (graphql-category-page, graphql-search, graphql-facets,
-- graphql-deep-keyset): POST /graphql with a random body of the file
-- BROWSE_REQUESTS (one JSON body per line, written by the bench:
-- bench/lib/browse-requests.ts).
local bodies = {}
for line in io.lines(os.getenv("BROWSE_REQUESTS")) do
  if #line > 0 then bodies[#bodies + 1] = line end
end
math.randomseed(os.time())
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
request = function()
  return wrk.format(nil, "/graphql", nil, bodies[math.random(1, #bodies)])
end
