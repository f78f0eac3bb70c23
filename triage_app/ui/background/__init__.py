"""What runs off the UI thread: the one engine worker on its QThread (worker), the latest run and
the rows its answers may land on (run), the file reader (file_reading) and the results database's
one owner (results_db)."""
