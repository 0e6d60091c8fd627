// Linking succeeded, so no public header defines a non-inline entity; nothing left to run.
int main() { return 0; }
