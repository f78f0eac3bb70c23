"""The ticket table: the model that presents a file's rows and answers (model), its sort and
filters (proxy, over row_order), the view with its frozen decision columns and keys (view), the
pane around it (pane: search, label filter, review queue, counts), the column picker (columns)
and the counts and accuracy on a throttle (summary)."""
