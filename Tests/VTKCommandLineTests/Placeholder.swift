// tests arrive below
