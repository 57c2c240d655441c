-- The words that stand together in some product's name, "a b" both ways
-- round (prisma/functions/add_search_name_pairs.sql fills it; a catalogue
-- migrated with browse rows already built is filled there once, from them).
CREATE TABLE "search_name_pairs" (
    "pair" TEXT NOT NULL,

    CONSTRAINT "search_name_pairs_pkey" PRIMARY KEY ("pair")
);
