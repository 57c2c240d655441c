-- wrk: PUT /products/:id for random ids in [1, ID_MAX] (the k6 rest-update-features
-- scenario): renames the product and replaces its features with 1-4 new ones,
-- from the generator's words (src/etl/generate/vocabulary.ts, a part of them;
-- k6/lib/product-update.ts makes the same bodies). Needs API_KEY. Any non-2xx
-- answer counts as an error (wrk's status errors).
local id_max = tonumber(os.getenv("ID_MAX") or "10000")
local api_key = os.getenv("API_KEY")
assert(api_key and api_key ~= "", "API_KEY must be set: this script writes")
math.randomseed(os.time())

local adjectives = { "Camo", "Bright Future", "Morning Joy", "Heir Force", "Pumped Up", "Summer", "Infinity", "Midnight",
  "Coastal", "Urban", "Vintage", "Classic", "Retro", "Everyday", "Weekend", "Trail", "Cozy", "Rugged", "Sleek", "Golden Hour" }
local nouns = { "Jacket", "Bomber", "Parka", "Sunglasses", "Cap", "Beanie", "Joggers", "Jeans", "Sneakers", "Trainers",
  "Loafers", "Heels", "Shorts", "Boots", "Sweatpants", "Tee", "Polo", "Coat", "Socks", "Slides", "Hoodie", "Trousers" }
-- {feature, values}; "" is a feature without a value (null).
local features = {
  { "Fabric", { "Canvas", "100% Cotton", "Denim", "Fleece", "Wool Blend", "Linen", "Polyester" } },
  { "Buttons", { "Brass", "Wood", "Plastic", "Horn" } },
  { "Lenses", { "Ultrasheen", "Polarized", "Gradient", "Mirrored" } },
  { "UV Protection", { "UV400", "Full" } },
  { "Frame", { "LightCompose", "DuraResin", "Titanium" } },
  { "Sole", { "Rubber", "FullControlSkin", "Leather", "EVA Foam" } },
  { "Material", { "FullControlSkin", "Leather", "Suede", "Mesh", "Nylon" } },
  { "Stitching", { "Double Stitch", "Cross Stitch", "Blanket Stitch" } },
  { "Mid-Sole", { "ControlSupport Arch Bridge", "Air Cushion", "Gel" } },
  { "Cut", { "Loose", "Skinny", "Straight", "Relaxed", "Slim" } },
  { "Green Leaf Certified", { "", "Yes" } },
  { "Non-GMO", { "", "Yes" } },
}

local function pick(list)
  return list[math.random(1, #list)]
end

wrk.method = "PUT"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer " .. api_key

request = function()
  -- 1-4 distinct features, from a random start in the list.
  local count = math.random(1, 4)
  local start = math.random(0, #features - 1)
  local parts = {}
  for i = 0, count - 1 do
    local f = features[(start + i) % #features + 1]
    local value = pick(f[2])
    parts[#parts + 1] = '{"feature":"' .. f[1] .. '","value":' .. (value == "" and "null" or ('"' .. value .. '"')) .. '}'
  end
  local body = '{"name":"' .. pick(adjectives) .. " " .. pick(nouns) .. '","features":[' .. table.concat(parts, ",") .. ']}'
  return wrk.format(nil, "/products/" .. math.random(1, id_max), nil, body)
end
