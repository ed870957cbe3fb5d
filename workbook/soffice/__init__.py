"""Running LibreOffice (soffice) headless: conversions and PNG pictures of sheets."""
