package rootlib

// Sep is the list separator.
const Sep = ", "
