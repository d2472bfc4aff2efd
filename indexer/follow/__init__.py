"""Following branches: is a label at its branch, moving it there, a branch indexed on demand."""
