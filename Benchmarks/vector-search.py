#!/usr/bin/env python3
"""The sqlite-vec half of the vector-search benchmark through Python's sqlite3 module: the brute-force query with
vec_distance_l2 and the vec0 k-NN query, on the file the Swift side wrote, with the same vec0.so. Prints the median
time per query in ms, in the rows of the Swift side's table.

    python3 Benchmarks/vector-search.py DATABASE VEC0_SO
"""
import sqlite3
import sys
import time


def median_ms(connection, sql, queries):
    times = []
    for query in queries:
        start = time.perf_counter()
        connection.execute(sql, (query,)).fetchall()
        times.append((time.perf_counter() - start) * 1000)
    times.sort()
    return times[len(times) // 2]


def main():
    path, vec0 = sys.argv[1], sys.argv[2]
    connection = sqlite3.connect(path)
    if not hasattr(connection, "enable_load_extension"):
        sys.exit(f"{sys.executable}: its sqlite3 module was built without loadable extensions; use another Python")
    connection.enable_load_extension(True)
    connection.load_extension(vec0.removesuffix(".so"))
    connection.enable_load_extension(False)
    queries = [row[0] for row in connection.execute("SELECT e FROM query ORDER BY id")]
    brute = median_ms(connection, "SELECT id FROM item ORDER BY vec_distance_l2(e, ?) LIMIT 10", queries)
    knn = median_ms(
        connection, "SELECT rowid FROM vec_item WHERE embedding MATCH ? AND k = 10 ORDER BY distance", queries)
    print(f"| Python sqlite3 {sqlite3.sqlite_version}, sqlite-vec vec_distance_l2, brute force | {brute:.1f} ms |")
    print(f"| Python sqlite3 {sqlite3.sqlite_version}, sqlite-vec vec0 k-NN | {knn:.1f} ms |")


if __name__ == "__main__":
    main()
