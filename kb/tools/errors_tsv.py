# One-time generator for kb/errors.tsv from CUDA 13.0 headers and libcudart.so.13 here.
import json,ctypes
d=json.load(open('/tmp/kbgen/enums.json'))
rt=ctypes.CDLL('/usr/local/cuda/lib64/libcudart.so.13')
rt.cudaGetErrorString.restype=ctypes.c_char_p
rt.cudaGetErrorName.restype=ctypes.c_char_p
fmap={
 2:'out-of-memory',3:'driver-init-failed',9:'launch-out-of-resources',34:'no-driver',
 35:'runtime-newer-than-driver',36:'runtime-newer-than-driver',46:'devices-unavailable',
 98:'no-kernel-image',100:'no-device',101:'invalid-device-ordinal',
 200:'invalid-kernel-image',209:'no-kernel-image',214:'ecc-errors',218:'invalid-ptx',
 221:'jit-compiler-missing',222:'ptx-too-new',223:'jit-disabled',300:'invalid-kernel-image',
 700:'illegal-address',701:'launch-out-of-resources',702:'launch-timeout',
 714:'kernel-exception',715:'kernel-exception',716:'illegal-address',717:'illegal-address',
 718:'kernel-exception',719:'kernel-exception',720:'launch-out-of-resources',
 802:'system-not-ready',803:'driver-library-mismatch',804:'forward-compat-unsupported',
 999:'unknown-error',
}
lines=['api\tcode\tname\tstring\tstring_source\tfinding\tsource']
rtnum={}
for n,v,doc in d['rt']:
    s=rt.cudaGetErrorString(v).decode(); nm=rt.cudaGetErrorName(v).decode()
    src='cudart'
    if nm!=n: s=doc.split('. ')[0].rstrip('.'); src='header-doc'
    rtnum[v]=(n,s,src)
    lines.append('\t'.join(['runtime',str(v),n,s,src,fmap.get(v,'-'),'DRIVER_TYPES_H_130;CUDART_130_HERE']))
for n,v,doc in d['dr']:
    if v in rtnum and rtnum[v][2]=='cudart':
        s=rtnum[v][1]; src='cudart-same-number'
    else:
        s=doc.split('. ')[0].rstrip('.').replace('\\deprecated ',''); src='header-doc'
    lines.append('\t'.join(['driver',str(v),n,s,src,fmap.get(v,'-'),'CUDA_H_130'+(';CUDART_130_HERE' if src=='cudart-same-number' else '')]))
open('/work/wt/kb/kb/errors.tsv','w').write('\n'.join(lines)+'\n')
