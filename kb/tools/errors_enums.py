import re,sys,ctypes,json
def parse(path, start_pat, prefix):
    txt=open(path).read()
    i=txt.index(start_pat); j=txt.index('}',i)
    body=txt[i:j]
    out=[]; doc=''
    for m in re.finditer(r'/\*\*(.*?)\*/|(\b'+prefix+r'\w+)\s*=\s*(\d+)', body, re.S):
        if m.group(1) is not None:
            d=re.sub(r'\s*\n\s*\*\s?',' ',m.group(1)).strip(); doc=re.sub(r'\s+',' ',d)
        else:
            out.append((m.group(2),int(m.group(3)),doc)); doc=''
    return out
rt=parse('/usr/local/cuda/include/driver_types.h','enum __device_builtin__ cudaError\n','cuda')
dr=parse('/usr/local/cuda/include/cuda.h','typedef enum cudaError_enum','CUDA_')
print(len(rt),len(dr),file=sys.stderr)
json.dump({'rt':rt,'dr':dr},open('enums.json','w'))
