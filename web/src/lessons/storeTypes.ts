/** The store types `mas_wr_store_type` can pick, in the order the "your turn" buttons list them. */
export const STORE_TYPES = [
  'wr_store_root',
  'wr_exact_fit',
  'wr_append',
  'wr_slot_store',
  'wr_node_store',
  'wr_split_store',
  'wr_rebalance',
  'wr_spanning_store',
  'wr_new_root',
] as const;
