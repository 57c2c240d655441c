-- The change feed's announcement (NOTIFY catalogue_changes, read by
-- src/cache/change-feed.ts) of products a statement changed, whoever ran it:
-- the API's own writes announce themselves too (the same payload text within
-- one transaction is delivered once), and so do SQL by hand and any other
-- client, through the triggers of products_changed_notify,
-- product_rows_changed_notify and style_media_changed_notify. One NOTIFY per
-- statement; a statement changing more products than fit one payload
-- (Postgres refuses 8000 bytes) says that anything may have changed. The
-- loader builds its tables without triggers and adds these with the others.
CREATE OR REPLACE FUNCTION notify_products_changed(product_ids integer[], change text) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  payload text;
BEGIN
  IF cardinality(product_ids) = 0 THEN
    RETURN;
  END IF;
  -- The text JSON.stringify gives (src/cache/change-feed.ts changePayloads).
  payload := '{"change":"' || change || '","ids":[' || (SELECT string_agg(DISTINCT id::text, ',') FROM unnest(product_ids) AS id WHERE id IS NOT NULL) || ']}';
  IF payload IS NULL THEN
    RETURN;
  END IF;
  IF octet_length(payload) > 7900 THEN
    payload := '{"change":"all"}';
  END IF;
  PERFORM pg_notify('catalogue_changes', payload);
END $$;
