from m4bench.cli import main

main()
