import sys, collections
rows = collections.defaultdict(list)
for line in open(sys.argv[1]):
    if 'iktrace' not in line: continue
    w = line.split('iktrace ')[1].split()
    rank, e, blk, last = int(w[1]), int(w[3]), int(w[5]), int(w[9])
    t = list(map(int, w[11:17]))
    rows[(rank, e, sys.argv[1])].append((blk, last, t))
for key in sorted(rows):
    r = rows[key]
    base = min(x[2][0] for x in r)
    import statistics as st
    names = ['start', 'stored', 'ticket', 'flags seen', 'unpacked', 'words unpacked']
    print(key[:2], 'blocks', len(r), 'kernel span %.1f us' % ((max(x[2][5] for x in r) - base) / 1e3))
    for i, n in enumerate(names):
        v = [(x[2][i] - base) / 1e3 for x in r]
        print('  %-15s min %6.1f  med %6.1f  max %6.1f' % (n, min(v), st.median(v), max(v)))
    lb = [x for x in r if x[1]]
    if lb: print('  last block %d: ticket->flags set at %.1f' % (lb[0][0], (lb[0][2][2] - base) / 1e3))
