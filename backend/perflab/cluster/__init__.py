"""What several `perflab serve` processes share through PostgreSQL: failure counts for rate limits,
one runner of each periodic sweep (an advisory lock), and change notices for live pages
(LISTEN/NOTIFY). See docs/scaling.md."""
