// The baseline: prisma/migrations starts with one migration that creates the
// whole schema, which replaced a history of 29 migrations (the project had
// no release). A database migrated by that history has the baseline's schema
// already (test/db/baseline.test.ts builds one from the history, kept in
// test/db/superseded-migrations/, and compares), so the runner records it as
// having the baseline instead of running it: no rebuild, no reload.
//
// It is recognised by `_prisma_migrations`: every migration of the history
// recorded, each with the checksum of the file it ran. A database with only
// part of the history, or an edited file of it, is not carried over: its
// schema is not the baseline's.

export const BASELINE_MIGRATION = '20261121000000_baseline';

/** The migrations the baseline replaced, in order, with the sha256 of each file. */
export const SUPERSEDED_MIGRATIONS: readonly (readonly [name: string, checksum: string])[] = [
  ['20261121000000_init', 'd0e94a88fa732e715aead07c914aa565f8e6c7e25593328d2a638d89a310e94b'],
  ['20261121120000_style_documents', '50e06634bf3d028ab88c024270528eacd9c6628be4acbf2a0e7b4e6c2cf38a30'],
  ['20261122000000_api_keys', '1a63fbee40dca31ea489aacb265134996f85ec7f71e6e6857ee1b716c7799fac'],
  ['20261122010000_idempotency_keys', '748c1fd6919a53340c0e5fc24968057682e5459996035fc84ccd6609afe46001'],
  ['20261123000000_product_versions', '176c85c9cb3834137bbaf1a98a988f3d2f3bb900d54ac5b7763b424d4841fda6'],
  ['20261124000000_legacy_sync', 'b432b86de0e79e88bfb669e78e9368cf736eaf44137b05876c46de50e8787e88'],
  ['20261125100000_browse', '91949b1ddd0bf63fb0fa8f1023ecc3d5e11823efe87b8d8dc1fe7f3b02ae6e29'],
  ['20261126090000_browse_size_sets', '9d81fd56c65b92cc77a060c56dab06e4f61805a31e7ab759d6799d97f361fb12'],
  ['20261126100000_inline_search_documents', 'c7589910278b66f121c576b08060f48eef19dcd58b8fea434934b600c6c27195'],
  ['20261127000000_product_detail_documents', '54115912baf834259928f9f27213c26ee62c01a8aed32f905f208bdcfcff9870'],
  ['20261128000000_browse_category_orderings', '0731836ced30cf53437033e7021da5947bf0d8bcad6e26daee66a21b993f59c7'],
  ['20261128010000_detail_documents_locked', 'dcb7cebdb6fe419c5d75fbd8a8c997653d2a92d5920fe37615a61c1f6454a1e5'],
  ['20261129000000_browse_size_pair_cells', '691c594af67c7af7bd58a28b11d3aa0368ea58a27d3061877906ce6edd25e208'],
  ['20261129010000_search_typo_words', '3a5a8cae196ba1c0d82ac61963f503aa5f31484eb81bf8c7f9ebe9bc61acca6e'],
  ['20261129020000_search_lexemes_every_lexeme', '9910148a86a78189b9acf1eb3a010e27573a61c9e3737f889ab961e95c0cc7b7'],
  ['20261129030000_read_models_locked', '70d1a16c9d3af1b54530758cc9a3683fd418061f14c5191cb811c4e73e063d63'],
  ['20261129040000_search_typo_plain_words', '6843d2d659729e219f31401404bfb90627725676161965fef303f4af26d74628'],
  ['20261129050000_browse_size_cells_by_size', 'cb93da3a8232404eea19d47875e4eac74fb2feb0bf65425ee8f02d2bb910153f'],
  ['20261130000000_default_style_documents', '1c6bceaca0f4c3e5363ecd4d951b70afb4a32c4e561fef62a7c844b7571a7aa3'],
  ['20261201000000_search_buckets', '953c9ced49a3601bcdc6f6f5649dca399f9b8f1cad1e80872550d61c40aff5b4'],
  ['20261201010000_default_style_built_with_documents', 'ab64a3ef45aba72360f3f07876095d735da13b6e74d3b5c87e5d0fc72755b91c'],
  ['20261201020000_search_typo_edit_distance', 'aad9a609341653aaab40d5442f1dace7582afe5b1b92b5de82be44395b144f5b'],
  ['20261202000000_search_documents_per_distinct_text', 'd2ec204685210708b393a918cf2e8bf9384d72f65cd7c071c79e1a5d92da8095'],
  ['20261203000000_search_ranking', 'b49e1b223173b85af6d369af32d245563a0b11344b5ae628bce0f7ef9977c1d0'],
  ['20261204000000_search_name_functions_inlined', 'df870a3c28a178f4df7ec59e658a7481a129c0062e43ae20c12e270c0cce1c6d'],
  ['20261205000000_search_word_facets', 'e4af19322c382696df56fe924699f2fe7db2ba48921ba97f528d79a2439d0004'],
  ['20261206000000_search_indexes_without_pending_list', '7ebe4bfcbd1ddeaef5334f691d56f11dc6a2112ff3a6add587145c0bfd82c510'],
  ['20261207000000_search_pair_facets', '9bdfd49816ffc6ad25cd9e2b93d968704e08f870df7657280687aa19ce592f6a'],
  ['20261208000000_search_name_pairs', '21f21e7b7562408e955d1645b88885be795d63977c7a06790de336f6e37d87ff'],
];

export type SupersededHistory =
  | { kind: 'none' }
  | { kind: 'complete'; names: string[] }
  | { kind: 'incomplete'; problem: string };

/**
 * What a database's recorded migrations (name to checksum; finished, not
 * rolled back) hold of the superseded history: none of it, all of it as the
 * files were, or something else (`problem` says what, for the operator).
 */
export function supersededHistory(recorded: ReadonlyMap<string, string>): SupersededHistory {
  const present = SUPERSEDED_MIGRATIONS.filter(([name]) => recorded.has(name));
  if (present.length === 0) return { kind: 'none' };
  const edited = present.filter(([name, checksum]) => recorded.get(name) !== checksum).map(([name]) => name);
  const missing = SUPERSEDED_MIGRATIONS.filter(([name]) => !recorded.has(name)).map(([name]) => name);
  if (edited.length === 0 && missing.length === 0) return { kind: 'complete', names: present.map(([name]) => name) };
  const what = [
    missing.length > 0 ? `lacks ${missing.length} of them (${missing.join(', ')})` : '',
    edited.length > 0 ? `ran ${edited.length} of them from other files than the history's last ones (${edited.join(', ')})` : '',
  ].filter(Boolean).join(' and ');
  return {
    kind: 'incomplete',
    problem: `the database was migrated by the ${SUPERSEDED_MIGRATIONS.length} migrations that ${BASELINE_MIGRATION} replaced, but ${what}: ` +
      'its schema is not the baseline\'s. Migrate it with a checkout from before the baseline first, or start from an empty database (npm run data:load fills it)',
  };
}
