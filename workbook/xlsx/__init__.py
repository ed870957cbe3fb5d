"""Shared .xlsx plumbing for both workbooks: the book under construction, cells, styles, fast row
filling, the Presets and xlwings.conf sheets, and safe file writes."""
