"""The pages: the reports rendered from the catalog's assessments, the figures, the publishing of the
output folder (never deleting what it did not write) and the headline block of the README."""
