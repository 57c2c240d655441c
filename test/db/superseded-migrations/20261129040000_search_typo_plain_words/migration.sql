-- Typo correction picks among plain words only: letters and digits, not a
-- bare number. Since 20261129020000 the dictionary holds every lexeme of the
-- documents, and a misspelt word could be corrected to a URL, a path, an
-- e-mail address or a host ("zqxvmail" became 'foo@zqxvmail.com': an
-- outside run on the dev catalogue). The typo index covers what the lookup
-- may return (src/catalog/browse-statements.ts, resolveStatement).
DROP INDEX "search_lexemes_word_trgm_idx";
CREATE INDEX "search_lexemes_word_trgm_idx" ON "search_lexemes" USING GIST ("lexeme" gist_trgm_ops) WHERE lexeme ~ '^[[:alnum:]]+$' AND lexeme !~ '^[0-9]+$';
