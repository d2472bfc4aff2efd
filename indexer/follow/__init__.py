"""Following branches: does a label reflect its branch, move it there (a refresh), index a branch on demand."""
