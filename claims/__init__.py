"""The claims catalog: one entry per claim of the documents, each with computed verdicts and evidence."""
